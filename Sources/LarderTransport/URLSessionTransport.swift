import Foundation
import LarderFormat
import LarderSystem
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` on Foundation's URLSession: the transport for Apple platforms, where
/// URLSession is the system's HTTP client. On Linux use ``CurlTransport`` (the default there):
/// swift-corelibs-foundation's URLSession decodes `Content-Encoding` on its own and has a
/// lock-order inversion between cancellation and socket completion (issue 5412).
///
/// Bodies stream through a delegate into the sink and are bounded as they arrive; a
/// cancellation is handed to another thread, so the task's cancellation handler never waits on
/// URLSession's queue. No URL cache (the Larder cache is the cache), no cookies. Without
/// ``HTTPRequest/acceptsCompression`` it asks for `identity`; URLSession decodes whatever a
/// server sends anyway, never past ``HTTPRequest/maximumBodyBytes``. Redirects are followed
/// only within the request's origin (``RedirectRule``).
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let router: TaskRouter

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpMaximumConnectionsPerHost = 8
        router = TaskRouter()
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse { try await collect(request) }

    public func send(_ request: HTTPRequest, into sink: any ResponseSink) async throws(TransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        let (seconds, attoseconds) = request.timeout.components
        urlRequest.timeoutInterval = Double(seconds) + Double(attoseconds) / 1e18
        urlRequest.setValue(request.acceptsCompression ? "gzip" : "identity", forHTTPHeaderField: "Accept-Encoding")
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let task = session.dataTask(with: urlRequest)
        let exchange = Exchange(request: request, sink: sink, task: task)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchange.start(continuation)
                router.register(exchange, for: task)
                task.resume()
            }
        } onCancel: {
            // Never call URLSessionTask.cancel while holding the task's cancellation lock.
            DispatchQueue.global().async { task.cancel() }
        }
        return try exchange.outcome().get()
    }
}

/// Routes each data task's delegate calls to its exchange.
private final class TaskRouter: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Locked<[Int: Exchange]>([:])

    func register(_ exchange: Exchange, for task: URLSessionTask) {
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
    }

    private func exchange(_ task: URLSessionTask) -> Exchange? { exchanges.withLock { $0[task.taskIdentifier] } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let allowed = exchange(dataTask)?.begin(response) ?? false
        completionHandler(allowed ? .allow : .cancel)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let allowed = exchange(task)?.mayFollow(to: request.url, location: response.value(forHTTPHeaderField: "Location") ?? "") ?? false
        completionHandler(allowed ? request : nil)
        if !allowed { task.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if exchange(dataTask)?.receive(data) == false { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(error)
    }
}

/// One request's state between the delegate callbacks (serial on the session's queue).
private final class Exchange: @unchecked Sendable {
    private let request: HTTPRequest
    private let sink: any ResponseSink
    private let task: URLSessionTask
    /// The caller waiting, and the result: set under the lock before the caller resumes, read
    /// by it under the lock (which also makes the sink's state visible to it).
    private let handoff = Locked<(continuation: CheckedContinuation<Void, Never>?, result: Result<HTTPResponse, TransportError>?)>((nil, nil))
    private var head: HTTPResponse?
    private var received: Int64 = 0
    private var failure: TransportError?

    init(request: HTTPRequest, sink: any ResponseSink, task: URLSessionTask) {
        self.request = request
        self.sink = sink
        self.task = task
    }

    func start(_ continuation: CheckedContinuation<Void, Never>) {
        handoff.withLock { $0.continuation = continuation }
    }

    func outcome() -> Result<HTTPResponse, TransportError> {
        handoff.withLock { $0.result } ?? .failure(TransportError(.cancelled, "the request ended without an outcome", url: request.url))
    }

    /// Whether to follow a redirect to `url`: only within the request's origin
    /// (``RedirectRule``); a refusal becomes the outcome.
    func mayFollow(to url: URL?, location: String) -> Bool {
        guard let origin = HTTPOrigin(request.url) else { return false }
        if let refusal = RedirectRule.refusal(to: url.flatMap(HTTPOrigin.init), from: origin, location: location, url: request.url) {
            failure = refusal
            return false
        }
        return true
    }

    func begin(_ response: URLResponse) -> Bool {
        guard failure == nil else { return false }
        guard let http = response as? HTTPURLResponse else {
            failure = TransportError(.connection, "not an HTTP response", url: request.url)
            return false
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        if http.expectedContentLength > request.maximumBodyBytes, headers["content-encoding"] == nil {
            failure = TransportError.tooLarge(request.url, limit: request.maximumBodyBytes)
            return false
        }
        head = HTTPResponse(status: http.statusCode, headers: headers, body: Data())
        do throws(TransportError) { try sink.begin(status: http.statusCode, headers: headers) } catch {
            failure = error
            return false
        }
        return true
    }

    func receive(_ data: Data) -> Bool {
        guard failure == nil else { return false }
        received += Int64(data.count)
        guard received <= request.maximumBodyBytes else {
            failure = TransportError.tooLarge(request.url, limit: request.maximumBodyBytes)
            return false
        }
        failure = data.withUnsafeBytes { bytes -> TransportError? in
            do throws(TransportError) { try sink.receive(bytes) } catch { return error }
            return nil
        }
        return failure == nil
    }

    func complete(_ error: (any Error)?) {
        let outcome: Result<HTTPResponse, TransportError>
        if let failure {
            outcome = .failure(failure)
        } else if let error = error as? URLError {
            switch error.code {
            case .timedOut: outcome = .failure(TransportError(.timeout, "no complete answer within \(DurationText.describe(request.timeout))", url: request.url))
            case .cancelled: outcome = .failure(TransportError(.cancelled, "the request was cancelled", url: request.url))
            case .httpTooManyRedirects, .redirectToNonExistentLocation:
                outcome = .failure(TransportError(.redirectLoop, "too many redirects", url: request.url))
            default: outcome = .failure(TransportError(.connection, "connection failed: \(error.localizedDescription)", url: request.url))
            }
        } else if let error {
            outcome = .failure(TransportError(.connection, "request failed: \(error)", url: request.url))
        } else if var head {
            head.wireBytes = received
            outcome = .success(head)
        } else {
            outcome = .failure(TransportError(.connection, "the request ended without a response", url: request.url))
        }
        let continuation = handoff.withLock { handoff in
            handoff.result = outcome
            defer { handoff.continuation = nil }
            return handoff.continuation
        }
        continuation?.resume()
    }
}
