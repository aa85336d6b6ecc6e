import Dispatch

/// Runs blocking work (packing, installing, verifying, joining a server's threads) on a
/// Dispatch thread, so the few threads of Swift's cooperative pool stay free for the tests
/// that measure time meanwhile.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
