import Foundation
import LarderFormat

/// Whether a trigger may present its journey to a person again (a reentry
/// policy controls how often a journey appears): a pure decision over the trigger's policy, when
/// the journey was last shown to that person by a trigger (remembered across restarts, forgotten
/// by a logout) and the time.
enum ReentryRule {
    /// Whether the journey may be shown now: always the first time; then every time (always),
    /// never again (once), or once the interval passed since it was last shown (every).
    static func allows(_ reentry: TriggerDocument.Reentry, lastShown: Date?, now: Date) -> Bool {
        guard let lastShown else { return true }
        switch reentry {
        case .always: return true
        case .once: return false
        case .every(let seconds): return now >= lastShown.addingTimeInterval(TimeInterval(seconds))
        }
    }
}
