import Foundation
import LarderTransport

/// The end of one fetch: every request, retry pause and wait for another process stops there.
struct FetchDeadline: Sendable {
    let end: ContinuousClock.Instant

    init(after duration: Duration) { end = .now + duration }

    var remaining: Duration { ContinuousClock.now.duration(to: end) }

    /// The time limit of the next request: `limit`, cut to what is left.
    /// - Throws: `TransportError/Code/timeout` when nothing is left.
    func requestTimeout(_ limit: Duration, url: URL? = nil) throws(TransportError) -> Duration {
        let left = remaining
        guard left > .milliseconds(10) else { throw TransportError(.timeout, "the fetch's deadline passed", url: url) }
        return min(limit, left)
    }

    /// Sleeps for `pause`, or until the deadline if that comes first.
    /// - Throws: `TransportError/Code/cancelled` when the task is cancelled.
    func sleep(_ pause: Duration) async throws(TransportError) {
        do { try await Task.sleep(for: min(pause, max(.zero, remaining))) } catch {
            throw TransportError(.cancelled, "the fetch was cancelled")
        }
    }
}

extension HTTPTransport {
    /// Sends `request`, trying again after a retryable failure (no connection, a timeout, too
    /// slow) up to `attempts` times in all, with a short pause that grows each time (100 ms,
    /// 400 ms, …), never past `deadline`; each try's time limit is cut to what is left.
    /// - Returns: the response and how many requests it took.
    func send(
        _ request: HTTPRequest, into sink: (any ResponseSink)? = nil, attempts: Int, deadline: FetchDeadline
    ) async throws(TransportError) -> (response: HTTPResponse, requests: Int) {
        var attempt = 0
        var request = request
        let limit = request.timeout
        while true {
            attempt += 1
            request.timeout = try deadline.requestTimeout(limit, url: request.url)
            do {
                if let sink { return (try await send(request, into: sink), attempt) }
                return (try await send(request), attempt)
            } catch where error.isRetryable && attempt < attempts && deadline.remaining > .zero {
                try await deadline.sleep(.milliseconds(100 * attempt * attempt))
            }
        }
    }
}
