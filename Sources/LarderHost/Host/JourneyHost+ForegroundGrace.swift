import Foundation
import LarderFormat

/// The foreground grace as the host applies it (``ForegroundGrace``): a presentation asked
/// for just after the app came back waits it out; a trigger (``JourneyTriggers``) asks whether
/// it is on and is suppressed meanwhile.
extension JourneyHost {
    /// When the foreground grace ends, if the app came back to the foreground less than the
    /// grace ago (``ForegroundGrace``); nil when it is not on.
    func foregroundGraceEnd() -> Date? {
        ForegroundGrace.appearance(returnedToForeground: origin.schedule.returnedToForeground, now: clock.now, grace: configuration.foregroundGrace)
    }

    /// Waits, when the app came back to the foreground less than the grace ago, until the
    /// grace has passed (``ForegroundGrace``).
    func waitOutForegroundGrace() async throws(HostError) {
        guard let end = foregroundGraceEnd() else { return }
        note(.foregroundGrace, "appears at the end of the foreground grace, in \(DurationText.describe(seconds: end.timeIntervalSince(clock.now)))")
        do { try await clock.sleep(until: end) } catch { throw HostError(.cancelled, "the presentation was cancelled during the foreground grace") }
    }
}
