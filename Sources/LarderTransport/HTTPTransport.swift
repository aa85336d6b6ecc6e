import Foundation

/// One HTTP request: a GET unless ``method`` says otherwise, with the limits that keep it
/// bounded whatever the server does.
public struct HTTPRequest: Sendable {
    /// The slowest transfer tolerated: below ``bytesPerSecond`` on average over ``window``,
    /// the request fails with ``TransportError/Code/tooSlow``.
    public struct MinimumSpeed: Sendable, Equatable {
        public var bytesPerSecond: Int
        public var window: Duration

        public init(bytesPerSecond: Int, window: Duration) {
            self.bytesPerSecond = bytesPerSecond
            self.window = window
        }
    }

    /// The body bound of a request that does not set one: enough for any document or answer
    /// Larder expects, far below what could hurt a device.
    public static let defaultMaximumBodyBytes: Int64 = 1 << 20

    public var url: URL
    /// Header fields to send, such as `Range`, `If-Range`, `If-None-Match`, `X-Larder-Key`.
    public var headers: [String: String]
    /// How long the whole request may take, from connecting to the last body byte.
    public var timeout: Duration
    /// The HTTP method, such as `GET` or `POST`.
    public var method: String
    /// The bytes to send as the request body, exactly as given; nil sends none.
    public var body: Data?
    /// The most body bytes accepted (after decoding, when ``acceptsCompression``): a longer
    /// body fails with ``TransportError/Code/tooLarge`` as soon as it passes the bound.
    public var maximumBodyBytes: Int64
    /// Whether to ask for a gzip-encoded body (decoded as it arrives, never past
    /// ``maximumBodyBytes``). Without it, a response with a `Content-Encoding` is refused
    /// with ``TransportError/Code/unexpectedEncoding``.
    public var acceptsCompression: Bool
    /// Nil tolerates any speed within ``timeout``.
    public var minimumSpeed: MinimumSpeed?

    public init(
        url: URL, headers: [String: String] = [:], timeout: Duration = .seconds(30), method: String = "GET",
        body: Data? = nil, maximumBodyBytes: Int64 = HTTPRequest.defaultMaximumBodyBytes, acceptsCompression: Bool = false,
        minimumSpeed: MinimumSpeed? = nil
    ) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.method = method
        self.body = body
        self.maximumBodyBytes = maximumBodyBytes
        self.acceptsCompression = acceptsCompression
        self.minimumSpeed = minimumSpeed
    }
}

/// An HTTP response. ``body`` is empty when the body went to a ``ResponseSink``.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields with lowercased names.
    public var headers: [String: String]
    public var body: Data
    /// Body bytes as they crossed the network (compressed, when they were): what the
    /// transfer cost.
    public var wireBytes: Int64

    public init(status: Int, headers: [String: String], body: Data, wireBytes: Int64? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.wireBytes = wireBytes ?? Int64(body.count)
    }
}

/// Sends HTTP requests. On Linux the production type is ``CurlTransport`` (and on
/// Apple platforms ``URLSessionTransport``; ``platformTransport()`` picks it); tests of rules swap in their own.
public protocol HTTPTransport: Sendable {
    /// Sends the request and returns the response with its whole body (at most
    /// ``HTTPRequest/maximumBodyBytes``), whatever its status.
    /// - Throws: ``TransportError``: `connection`, `timeout`, `tooSlow`, `tooLarge`,
    ///   `unexpectedEncoding`, `redirectLoop`, `redirectRefused` (a redirect out of the request's
    ///   origin: ``RedirectRule``), `cancelled`.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse

    /// Sends the request and hands the body to `sink` as it arrives, so it never has to fit
    /// in memory. The response returned has an empty body.
    /// - Throws: what ``send(_:)`` throws, and whatever `sink` threw (the transfer stops there).
    func send(_ request: HTTPRequest, into sink: any ResponseSink) async throws(TransportError) -> HTTPResponse
}

extension HTTPTransport {
    /// Sends through ``send(_:)`` and feeds the sink from the whole body: for transports
    /// (test doubles) that have no streaming of their own.
    public func send(_ request: HTTPRequest, into sink: any ResponseSink) async throws(TransportError) -> HTTPResponse {
        var response = try await send(request)
        guard Int64(response.body.count) <= request.maximumBodyBytes else {
            throw TransportError.tooLarge(request.url, limit: request.maximumBodyBytes)
        }
        try sink.begin(status: response.status, headers: response.headers)
        let refusal = response.body.withUnsafeBytes { bytes -> TransportError? in
            do throws(TransportError) { try sink.receive(bytes) } catch { return error }
            return nil
        }
        if let refusal { throw refusal }
        response.body = Data()
        return response
    }
}

/// Receives a response body as it arrives. A transport calls it from one thread at a time,
/// `begin` first, and never after the send returned.
public protocol ResponseSink: AnyObject, Sendable {
    /// The final response's status and headers (lowercased names), before its first body byte.
    /// Throwing refuses the response: the transfer stops and the send throws that error.
    func begin(status: Int, headers: [String: String]) throws(TransportError)

    /// The next body bytes (decoded, when compression was asked for). Throwing stops the
    /// transfer and the send throws that error.
    func receive(_ bytes: UnsafeRawBufferPointer) throws(TransportError)
}

/// The production transport of this platform: ``CurlTransport`` on Linux (libcurl, whose
/// cancellation and limits hold whatever a server does; see Docs/Fetching.md), and
/// ``URLSessionTransport`` where Foundation's own URLSession is the platform's HTTP client.
public func platformTransport() -> any HTTPTransport {
    #if canImport(CCurl)
    CurlTransport.shared
    #else
    URLSessionTransport()
    #endif
}
