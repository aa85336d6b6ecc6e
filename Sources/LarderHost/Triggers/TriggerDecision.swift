/// What ``JourneyTriggers/trigger(_:properties:)`` did with an app event: shown,
/// suppressed (and why), or no trigger matched.
public enum TriggerDecision: Sendable, Equatable {
    /// The event presents `journey`, and it is on screen in `session` (its end:
    /// ``JourneyHost/waitForCompletion()`` of ``JourneyTriggers/host(for:)``).
    case shown(journey: String, session: PresentationSession)
    /// The event matched `journey` (nil when the triggers themselves could not be read), which
    /// was not shown, for `reason`.
    case suppressed(journey: String?, reason: TriggerSuppression)
    /// No published trigger names the event (or the origin publishes no triggers).
    case noMatch

    /// `shown`, `suppressed` or `no-match` (the CLI's `decision`).
    public var name: String {
        switch self {
        case .shown: "shown"
        case .suppressed: "suppressed"
        case .noMatch: "no-match"
        }
    }
}

/// Why a matched trigger presented nothing.
public enum TriggerSuppression: String, Sendable, Equatable, CaseIterable {
    /// The trigger's reentry policy: the journey was shown to this person already (once), or
    /// too recently (every <duration>).
    case reentry
    /// Another presentation is open (one at a time: a trigger never replaces it).
    case presentationOpen = "presentation-open"
    /// The app came back to the foreground less than the foreground grace ago
    /// (``JourneyConfiguration/foregroundGrace``).
    case foregroundGrace = "foreground-grace"
    /// Nothing could be shown: the journey has no content (offline with nothing cached, not
    /// ready in time, no content fits the renderer), or the triggers could not be read.
    case noContent = "no-content"
    /// The origin denied the key the journey (or its triggers): 401, 403, a confirmed 404.
    case denied
}
