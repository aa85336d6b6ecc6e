import LarderCache

/// An answer to a scheme request: a status, a media type (sent both as WebKit's content type
/// and as a `Content-Type` header, since WebKitGTK 2.50 leaves `Response.headers` without one
/// otherwise), extra headers and the body.
public struct SchemeResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The media type.
    public var mediaType: String
    /// Headers besides `Content-Type`.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// A verified file or font. Both schemes' URLs name their content (the bundle's digest, the
    /// font's), so the answer is cacheable for good.
    public init(mediaType: String, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        status = 200
        self.mediaType = mediaType
        self.headers = headers + [(name: "Cache-Control", value: "max-age=31536000, immutable")]
        self.body = body
    }

    /// An error: the status and a one-line plain-text body saying why.
    public init(status: Int, message: String) {
        self.status = status
        mediaType = "text/plain; charset=utf-8"
        headers = []
        body = Array((message + "\n").utf8)
    }

    /// The answer with `policy` as its `Content-Security-Policy`. Every answer of both schemes
    /// carries it, whatever its role or media type: an SVG, XML or XHTML file in a frame is a
    /// document that runs script, and so could anything a page sniffs as one.
    public func withPolicy(_ policy: String) -> SchemeResponse {
        var copy = self
        copy.headers.append((name: "Content-Security-Policy", value: policy))
        return copy
    }

    /// The status that answers a cache failure: 404 when the bundle or cache lacks it, 400 for
    /// a malformed font URL, 500 when the stored object is corrupt (it was quarantined) or the
    /// storage failed.
    package static func status(for error: CacheError) -> Int {
        switch error.code {
        case .resourceNotFound, .unknownFont, .bundleNotFound, .bundleIncomplete: 404
        case .malformedFontURL: 400
        default: 500
        }
    }
}
