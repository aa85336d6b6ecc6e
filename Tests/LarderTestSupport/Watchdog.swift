import Foundation
import LarderSystem

/// A call that had not returned when its watchdog's time ran out.
public struct WatchdogExpired: Error, CustomStringConvertible {
    public let seconds: Double
    public var description: String { "still running after \(seconds) s: it hangs" }
}

/// Runs blocking `body` on a thread of its own and waits at most `seconds` for it, so a call
/// that hangs (opening a FIFO, waiting on a lock) fails the test instead of hanging the run. A
/// hung thread is left behind: threads cannot be killed. The limit is scaled by ``testTimeScale``.
/// - Throws: ``WatchdogExpired``, or what `body` threw.
public func withWatchdog<T: Sendable>(seconds: Double = 20, _ body: @escaping @Sendable () throws -> T) throws -> T {
    let outcome = Outcome<T>()
    Thread.detachNewThread {
        let result = Result { try body() }
        outcome.settle(result)
    }
    let limit = seconds * testTimeScale
    guard let result = outcome.wait(seconds: limit) else { throw WatchdogExpired(seconds: limit) }
    return try result.get()
}

private final class Outcome<T: Sendable>: Sendable {
    private let result = Locked<Result<T, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func settle(_ value: Result<T, any Error>) {
        result.withLock { $0 = value }
        done.signal()
    }

    func wait(seconds: Double) -> Result<T, any Error>? {
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }
}
