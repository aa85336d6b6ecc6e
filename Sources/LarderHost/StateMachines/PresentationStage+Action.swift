import LarderCache

/// The stage's vocabulary: how a session ends, and what its events return for
/// ``JourneyHost`` to perform.
extension PresentationStage {
    /// How a session ends.
    enum Exit: Sendable, Equatable {
        /// Dismissed: by the app (``JourneyHost/dismiss()``), by the content (`dismiss`,
        /// `complete`) or by another host's presentation (replaced). What was staged or
        /// prepared is shown next (``DismissalRule``, ``PreviewRule``).
        case dismissed(PresentationOutcomeRule.Ending)
        /// Stopped by the host: a denial, a configuration change, a logout. The renderer drops
        /// what it showed; the caller discards what was prepared.
        case stopped(PresentationOutcomeRule.Ending)
        /// The renderer's engine ended by itself (``RendererTermination``): nothing is loaded
        /// any more, and there is nothing to call.
        case terminated
        /// The host was disposed: every lease goes, and the caller stops the renderer.
        case disposed

        /// What ended the presentation, for its outcome.
        var ending: PresentationOutcomeRule.Ending {
            switch self {
            case .dismissed(let ending), .stopped(let ending): ending
            case .terminated: .failure
            case .disposed: .app
            }
        }
    }

    /// What the host does after an event of the stage, in this order: report the session that
    /// ended, release the leases, make the renderer calls, then the follow-ups.
    struct Action: Equatable {
        /// The session that ended, if one did: its result is published, the host leaves the
        /// coordinator, and the timeline says how it ended.
        var ended: EndedSession?
        /// Leases no slot of the stage uses any more.
        var release: [BundleLease] = []
        /// Renderer calls, in order.
        var renderer: [RendererCall] = []
        /// What follows, in order.
        var then: [FollowUp] = []

        /// Nothing to do.
        static let none = Action()

        static func == (lhs: Action, rhs: Action) -> Bool {
            lhs.ended == rhs.ended && lhs.renderer == rhs.renderer && lhs.then == rhs.then
                && lhs.release.count == rhs.release.count && zip(lhs.release, rhs.release).allSatisfy { $0 === $1 }
        }
    }

    /// A session that ended, and how.
    struct EndedSession: Sendable, Equatable {
        var session: PresentationSession
        var exit: Exit
        var outcome: PresentationOutcome
        /// The screen it ended on.
        var screen: JourneyScreen?

        /// Whether the bridge's counting period ends with it (each presentation has its own
        /// rate limit). Not after the renderer ended by itself: the next presentation ends the
        /// period as it appears.
        var endsBridgePeriod: Bool { exit != .terminated }

        /// The outcome and last screen, for the timeline ("dismissed on screen screen-2.html").
        var summary: String { outcome.rawValue + (screen.map { " on screen \($0.id)" } ?? "") }
    }

    /// A call to the renderer.
    enum RendererCall: Equatable {
        /// Unload it; nothing prepared is loaded afterwards (``PresentationStage/rendererUnloaded()``).
        case unload
        /// Reset it to the first screen, hidden, after showing the content of this lease
        /// (``PresentationStage/resetFinished(keeping:)``); unload it when that fails.
        case reset(keeping: BundleLease)
        /// Load the prepared content hidden, when it is presented prepared and not loaded yet
        /// and no preview holds the renderer (a failure is left in readiness and the timeline).
        case loadHidden

        static func == (lhs: RendererCall, rhs: RendererCall) -> Bool {
            switch (lhs, rhs) {
            case (.unload, .unload), (.loadHidden, .loadHidden): true
            case (.reset(let left), .reset(let right)): left === right
            default: false
            }
        }
    }

    /// What the host does once the renderer calls are made.
    enum FollowUp: Sendable, Equatable {
        /// Publish the screen on show (nil: none).
        case publishScreen(JourneyScreen?)
        /// Nothing is prepared: readiness goes idle and a preparation starts in the background.
        case prepareAfresh
        /// Publish the prepared content's readiness: ready, or unloaded when it needs loading.
        case publishReadiness
        /// Deliver queued captures (``CaptureDrain``, after a dismissal).
        case deliverCaptures
    }
}

/// What the content did during the open session.
struct SessionActivity: Equatable {
    /// The content sent `purchase`.
    var purchaseRequested = false
    /// The content sent `restore`.
    var restoreRequested = false
    /// The screen on show: the entry document's at first, then what `navigate` named.
    var screen: JourneyScreen?
}

extension PreparedJourney {
    /// The same value, with `preloaded` as given (the stage's content keeps its mode).
    func preloaded(_ preloaded: Bool) -> PreparedJourney {
        var journey = self
        journey.preloaded = preloaded
        return journey
    }
}
