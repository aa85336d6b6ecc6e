import Foundation

/// One HTTP GET.
public struct HTTPRequest: Sendable {
    public var url: URL
    /// Header fields to send, such as `Range`, `If-Range`, `If-None-Match`, `X-Larder-Key`.
    public var headers: [String: String]
    public var timeout: Duration

    public init(url: URL, headers: [String: String] = [:], timeout: Duration = .seconds(30)) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
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
    /// Sends a GET and returns the response, whatever its status.
    /// - Throws: ``TransportError`` with code `connection`, `timeout` or `cancelled`.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}
