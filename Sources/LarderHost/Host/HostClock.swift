import Foundation

/// Where the host reads the time and how it waits.
///
/// Wall-clock time (not a monotonic instant) because freshness and backoff are persisted and
/// must mean the same after a restart. Tests drive a manual clock and never sleep.
public protocol HostClock: Sendable {
    /// The current time.
    var now: Date { get }
    /// Suspends until `deadline`, or throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The system clock: `Date()` and `Task.sleep`.
public struct SystemClock: HostClock {
    public init() {}
    public var now: Date { Date() }
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up)))) }
        try Task.checkCancellation()
    }
}

extension Date {
    /// This date moved by a `Duration`.
    func adding(_ duration: Duration) -> Date {
        let (seconds, attoseconds) = duration.components
        return addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// The `Duration` from `earlier` to this date (negative when `earlier` is later).
    func duration(since earlier: Date) -> Duration {
        .milliseconds(Int64((timeIntervalSince(earlier) * 1000).rounded(.down)))
    }
}
