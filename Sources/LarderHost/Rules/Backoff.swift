import Foundation

/// When the host may ask the origin again after failures.
///
/// Failures never start a retry loop: the backoff only says how long a later present, resume
/// or explicit retry must wait before it may try. `Retry-After` wins when the server sent one
/// (capped at a day); otherwise the wait doubles from 30 seconds up to 15 minutes.
enum Backoff {
    static let first: Duration = .seconds(30)
    static let longest: Duration = .seconds(15 * 60)
    static let longestRetryAfter: Duration = .seconds(24 * 60 * 60)

    /// The wait after `failures` consecutive failures (1 or more).
    static func delay(failures: Int, retryAfter: Duration?) -> Duration {
        if let retryAfter { return min(max(retryAfter, .zero), longestRetryAfter) }
        let doublings = min(max(failures - 1, 0), 10)
        return min(first * (1 << doublings), longest)
    }
}
