extension HTTPTransport {
    /// Sends `request`, trying again after a retryable failure (no connection, a timeout) up
    /// to `attempts` times in all, with a short pause that grows each time (100 ms, 400 ms, …).
    /// - Returns: the response and how many requests it took.
    func send(_ request: HTTPRequest, attempts: Int) async throws(TransportError) -> (response: HTTPResponse, requests: Int) {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return (try await send(request), attempt)
            } catch where error.isRetryable && attempt < attempts {
                try? await Task.sleep(for: .milliseconds(100 * attempt * attempt))  // an interrupted pause only retries sooner
            }
        }
    }
}
