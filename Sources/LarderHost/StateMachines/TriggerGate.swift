import Foundation
import LarderFormat

/// The trigger router's gate: what an app event does, one trigger at a time. The
/// event must match a published trigger; the trigger's reentry policy must let its journey
/// appear to this person again (``ReentryRule``); no presentation may be open, neither another
/// host's nor one a trigger is still bringing up (one at a time: a trigger never replaces what
/// is on screen); and the app must not have just come back to the foreground (the foreground
/// grace). A shown journey is remembered for its person.
///
/// A pure state machine, as ``CaptureDrain``: each event is a `mutating func` returning an
/// ``Action``; ``JourneyTriggers`` performs it in one place (`JourneyTriggers.swift`,
/// `perform(_:)`). It never reads the clock: the router passes the time.
struct TriggerGate: Sendable, Equatable {
    /// What the router does after an event.
    enum Action: Sendable, Equatable {
        /// Answer the app with this decision.
        case answer(TriggerDecision)
        /// Present `journey` (through its host, and so the coordinator).
        case present(journey: String)
        /// Remember that `journey` was shown to the person at `time`, then answer.
        case record(journey: String, at: Date, then: TriggerDecision)
    }

    /// The journey a trigger is presenting now (until its presentation is up or failed).
    private(set) var presenting: String?

    /// An event arrived.
    /// - Parameters:
    ///   - trigger: the published trigger it matches; nil for none.
    ///   - lastShown: when the trigger's journey was last shown to this person.
    ///   - now: the time.
    ///   - presentationOpen: a host of the coordinator's group is presenting.
    ///   - graceEnds: when the foreground grace of the journey's host ends, if it is on.
    mutating func triggered(
        _ trigger: TriggerDocument.Trigger?, lastShown: Date?, now: Date, presentationOpen: Bool, graceEnds: Date?
    ) -> Action {
        guard let trigger else { return .answer(.noMatch) }
        let journey = trigger.journey
        guard ReentryRule.allows(trigger.reentry, lastShown: lastShown, now: now) else { return .answer(.suppressed(journey: journey, reason: .reentry)) }
        guard presenting == nil, !presentationOpen else { return .answer(.suppressed(journey: journey, reason: .presentationOpen)) }
        if let graceEnds, graceEnds > now { return .answer(.suppressed(journey: journey, reason: .foregroundGrace)) }
        presenting = journey
        return .present(journey: journey)
    }

    /// The presentation a trigger asked for is on screen as `session` at `now`.
    mutating func presented(_ session: PresentationSession, now: Date) -> Action {
        guard let journey = presenting else { return .answer(.shown(journey: session.journey, session: session)) }
        presenting = nil
        return .record(journey: journey, at: now, then: .shown(journey: journey, session: session))
    }

    /// The presentation a trigger asked for failed: `denied` when the origin denied it, else
    /// nothing could be shown.
    mutating func failed(denied: Bool) -> Action {
        let journey = presenting
        presenting = nil
        return .answer(.suppressed(journey: journey, reason: denied ? .denied : .noContent))
    }
}
