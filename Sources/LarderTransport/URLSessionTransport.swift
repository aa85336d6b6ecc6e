import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` on Foundation's URLSession, with no URL cache of its own (the Larder cache
/// is the cache) and no cookies.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpMaximumConnectionsPerHost = 8
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        let components = request.timeout.components
        urlRequest.timeoutInterval = Double(components.seconds) + Double(components.attoseconds) / 1e18
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            switch error.code {
            case .timedOut: throw TransportError(.timeout, "no answer in time", url: request.url)
            case .cancelled: throw TransportError(.cancelled, "the request was cancelled", url: request.url)
            default: throw TransportError(.connection, "connection failed: \(error.localizedDescription)", url: request.url)
            }
        } catch {
            throw TransportError(.connection, "request failed: \(error)", url: request.url)
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(.malformedDocument, "not an HTTP response", url: request.url)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }
}
