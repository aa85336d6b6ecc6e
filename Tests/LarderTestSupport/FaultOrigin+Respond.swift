import Glibc

extension FaultOrigin.Connection {
    typealias Request = FaultOrigin.Request
    typealias Answer = FaultOrigin.Answer

    /// Sends `answer` (every case but the three handled before the body is read); returns whether
    /// the connection may carry another request.
    func perform(_ answer: Answer, for request: Request) throws(FaultOrigin.Hangup) -> Bool {
        let closing = Self.wantsClose(request)
        let withBody = request.method != "HEAD"
        switch answer {
        case .respond(let status, let headers, let body):
            var fields = headers
            if !Self.has("content-length", in: headers) && !Self.has("transfer-encoding", in: headers) {
                fields.append(("Content-Length", String(body.count)))
            }
            let close = closing || Self.value(of: "connection", in: headers)?.lowercased() == "close"
            try send(head: Self.head(status: status, fields: fields, closing: close))
            if withBody { try send(body: body) }
            return !close

        case .file(let root):
            return try serveFile(root: root, for: request, closing: closing)

        case .headersThenStall(let status, let headers, let contentLength):
            var fields = headers
            if !Self.has("content-length", in: headers) { fields.append(("Content-Length", String(contentLength))) }
            try send(head: Self.head(status: status, fields: fields, closing: false))
            drainUntilClosed()
            return false

        case .drip(let status, let headers, let body, let bytesPerSecond):
            var fields = headers
            if !Self.has("content-length", in: headers) { fields.append(("Content-Length", String(body.count))) }
            try send(head: Self.head(status: status, fields: fields, closing: closing))
            if withBody { try drip(body, bytesPerSecond: max(1, bytesPerSecond)) }
            return !closing

        case .endless(let status, let headers):
            try send(head: Self.head(status: status, fields: headers, closing: false))
            guard withBody else { return false }
            try sendForever(chunked: Self.isChunked(headers))

        case .raw(let head, let body, let close):
            var text = head
            if !text.hasSuffix("\r\n") { text += "\r\n" }
            try send(head: text + "\r\n")
            try send(body: body)
            return !close && !closing

        case .stream(let status, let headers, let contentLength, let next):
            var fields = headers
            let framed = Self.has("content-length", in: headers) || Self.has("transfer-encoding", in: headers)
            if !framed {
                fields.append(contentLength.map { ("Content-Length", String($0)) } ?? ("Transfer-Encoding", "chunked"))
            }
            let chunked = Self.isChunked(fields)
            try send(head: Self.head(status: status, fields: fields, closing: closing))
            guard withBody else { return !closing }
            var produced: Int64 = 0
            while let piece = next() {
                guard !piece.isEmpty else { continue }  // an empty chunk would end a chunked body
                if chunked { try send(head: String(piece.count, radix: 16) + "\r\n") }
                try send(body: piece)
                if chunked { try send(head: "\r\n") }
                produced += Int64(piece.count)
            }
            if chunked { try send(head: "0\r\n\r\n") }
            // Fewer or more bytes than announced leave the framing broken: end the connection.
            let honest = contentLength.map { $0 == produced } ?? true
            return !closing && honest

        case .redirect(let location):
            let fields = [("Location", location), ("Content-Length", "0")]
            try send(head: Self.head(status: 302, fields: fields, closing: closing))
            return !closing

        case .acceptAndNeverRead, .readAndNeverAnswer, .close:
            preconditionFailure("\(answer) is handled before the request body is read")
        }
    }

    /// `body` at about `bytesPerSecond`: whatever is due is sent, then the connection sleeps
    /// until the next byte is due (at most a tick at a time).
    private func drip(_ body: [UInt8], bytesPerSecond: Int) throws(FaultOrigin.Hangup) {
        let clock = ContinuousClock()
        let start = clock.now
        var sent = 0
        while sent < body.count {
            let elapsed = Self.seconds(clock.now - start)
            let due = min(body.count, Int(elapsed * Double(bytesPerSecond)) + 1)
            if due > sent {
                try send(body: body[sent..<due])
                sent = due
            } else {
                let nextDue = Double(sent) / Double(bytesPerSecond)
                let wait = Int32(min(Double(FaultOrigin.Core.tick), ((nextDue - elapsed) * 1000).rounded(.up)))
                try pause(milliseconds: wait)
            }
        }
    }

    /// An endless body: 64 KiB pieces as fast as the client reads them, until it goes away or
    /// the server stops (both end in a throw).
    private func sendForever(chunked: Bool) throws(FaultOrigin.Hangup) -> Never {
        let piece = [UInt8]((0..<64 * 1024).map { UInt8(truncatingIfNeeded: $0 % 26 + 97) })
        while true {
            if chunked { try send(head: String(piece.count, radix: 16) + "\r\n") }
            try send(body: piece)
            if chunked { try send(head: "\r\n") }
        }
    }

    // MARK: Heads

    static func head(status: Int, fields: [(String, String)], closing: Bool) -> String {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        if closing && !has("connection", in: fields) { text += "Connection: close\r\n" }
        return text + "\r\n"
    }

    /// Whether the client asked to close after this request (HTTP/1.0 is always closed).
    static func wantsClose(_ request: Request) -> Bool {
        let tokens = (request.headers["connection"] ?? "").lowercased().split(separator: ",").map { $0.trimmingSpaces }
        return tokens.contains("close") || request.version == "HTTP/1.0"
    }

    static func has(_ name: String, in fields: [(String, String)]) -> Bool { value(of: name, in: fields) != nil }

    static func value(of name: String, in fields: [(String, String)]) -> String? {
        fields.first { $0.0.lowercased() == name }?.1.trimmingSpaces
    }

    static func isChunked(_ fields: [(String, String)]) -> Bool {
        value(of: "transfer-encoding", in: fields)?.lowercased().hasSuffix("chunked") ?? false
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
