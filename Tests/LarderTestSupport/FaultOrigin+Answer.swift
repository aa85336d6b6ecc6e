extension FaultOrigin {
    /// What to do with one request.
    ///
    /// Unless an answer says otherwise, its request body (`Content-Length` or chunked) is read and
    /// thrown away first (after `100 Continue` when the client expects it), and the connection
    /// then waits for the next request. A request with `Connection: close`, or in HTTP/1.0, gets
    /// `Connection: close` and the connection is closed after the answer. HEAD requests get the
    /// headers of a GET without its body (except ``raw(head:body:close:)``, sent verbatim).
    public enum Answer: Sendable {
        /// A normal response. `Content-Length` is set from `body` unless `headers` give a
        /// `Content-Length` (which may lie) or a `Transfer-Encoding` (then `body` is sent as it is).
        case respond(status: Int, headers: [(String, String)] = [], body: [UInt8])

        /// Serves the file at `root + path` (query removed, percent-decoded, `..` refused) like a
        /// static server: 200; 206 for a single `Range: bytes=a-b`, `bytes=a-` or `bytes=-n`;
        /// 416 with `Content-Range: bytes */size` when it starts past the end; 404 when missing
        /// or not a regular file. Sends `Content-Length`, `Accept-Ranges`, `Last-Modified` and a
        /// strong `ETag` `"<size hex>-<mtime in ns hex>"`; an `If-Range` other than that exact
        /// tag (a date included) gives the whole file with 200. Several ranges give 200 too.
        case file(root: String)

        /// Accepts the connection and never reads from it: the request head is only peeked at
        /// (`MSG_PEEK`) to call the route, nothing is consumed or sent, and the connection stays
        /// open until the client closes it or the server stops.
        case acceptAndNeverRead

        /// Reads the request and never answers; whatever else the client sends is read and
        /// dropped until it closes the connection or the server stops.
        case readAndNeverAnswer

        /// Sends the status line and headers with `Content-Length: contentLength` (unless
        /// `headers` give one), then nothing until the client closes or the server stops.
        case headersThenStall(status: Int, headers: [(String, String)], contentLength: Int)

        /// Sends the headers at once with `Content-Length: body.count` (unless `headers` give one),
        /// then `body` at about `bytesPerSecond`, the first byte at once. A client that stops
        /// reading slows it down further.
        case drip(status: Int, headers: [(String, String)], body: [UInt8], bytesPerSecond: Int)

        /// An endless body, as fast as the client takes it, until the client goes away or the
        /// server stops. Without a `Transfer-Encoding: chunked` header in `headers` the body is
        /// delimited by the connection's close (no `Content-Length`); with one, it is sent as
        /// 64 KiB chunks that never reach the last chunk.
        case endless(status: Int, headers: [(String, String)])

        /// `head` (the status line and headers, each ending in CRLF, without the blank line that
        /// ends them) verbatim, the blank line, then `body` verbatim: headers may lie
        /// (`Content-Length` smaller or larger than `body`, a `Content-Range` total of 1 TB,
        /// `Content-Encoding: gzip` over ``FaultOrigin/gzipBomb(inflatedSize:)``). Then the
        /// connection is closed if `close`, or waits for the next request on it.
        case raw(head: String, body: [UInt8], close: Bool)

        /// A body produced lazily: `next` returns the next piece, or `nil` at the end, so a test
        /// can send a 1 GB manifest without holding it. With `contentLength`, that
        /// `Content-Length` is sent (and the connection closed afterwards if the pieces did not add
        /// up to it); without, the body is chunked, unless `headers` give a `Content-Length` or a
        /// `Transfer-Encoding` of their own. `next` runs on the connection's thread and is not
        /// called again once the client has gone.
        case stream(status: Int, headers: [(String, String)], contentLength: Int64?, next: @Sendable () -> [UInt8]?)

        /// A `302 Found` to `location` (absolute, or a path such as the request's own for a
        /// redirect loop).
        case redirect(to: String)

        /// Closes the connection at once, without answering (the request head is read first, so
        /// the client sees the connection end rather than a reset, unless a body was pending).
        case close
    }
}
