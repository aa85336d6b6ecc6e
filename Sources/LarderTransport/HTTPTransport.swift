import Foundation

/// One HTTP request: a GET unless ``method`` says otherwise.
public struct HTTPRequest: Sendable {
    public var url: URL
    /// Header fields to send, such as `Range`, `If-Range`, `If-None-Match`, `X-Larder-Key`.
    public var headers: [String: String]
    public var timeout: Duration
    /// The HTTP method, such as `GET` or `POST`.
    public var method: String
    /// The bytes to send as the request body, exactly as given; nil sends none.
    public var body: Data?

    public init(
        url: URL, headers: [String: String] = [:], timeout: Duration = .seconds(30), method: String = "GET",
        body: Data? = nil
    ) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.method = method
        self.body = body
    }
}

/// An HTTP response with its whole body.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields with lowercased names.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends HTTP requests. The production type is ``URLSessionTransport``; tests of rules swap in
/// their own.
public protocol HTTPTransport: Sendable {
    /// Sends the request and returns the response, whatever its status.
    /// - Throws: ``TransportError`` with code `connection`, `timeout` or `cancelled`.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}
