import Foundation

/// Seed 001's foreground grace: a presentation asked for just after the app came back to the
/// foreground waits until a short grace period has passed since then, so it never appears
/// over an app the user is still returning to. A pure decision over the time of the return,
/// the time now and the configured grace.
enum ForegroundGrace {
    /// The longest grace: a presentation never waits a second or more.
    static let longest: Duration = .milliseconds(999)

    /// The configured grace, clamped to 0…999 ms.
    static func clamped(_ grace: Duration) -> Duration {
        min(max(grace, .zero), longest)
    }

    /// When a presentation asked for `now` may appear: nil for at once (the app has not come
    /// back to the foreground since the host started, or the grace has passed), else the end
    /// of the grace.
    static func appearance(returnedToForeground: Date?, now: Date, grace: Duration) -> Date? {
        guard let returned = returnedToForeground else { return nil }
        let end = returned.adding(clamped(grace))
        return end > now ? end : nil
    }
}
