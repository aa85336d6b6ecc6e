import LarderCache
import LarderFormat

/// What is prepared, what waits staged, and what is on screen, with the open session: its
/// context and what the content did in it.
///
/// A pure state machine, as ``CaptureDrain``: every piece of state is `private(set)` and
/// changes only through an event, a `mutating func` that returns an ``Action`` (the leases
/// nothing uses any more, the renderer calls to make, the session that ended and what to
/// publish). ``JourneyHost`` keeps it and performs every action in one place
/// (`JourneyHost+Stage.swift`, `perform(_:)`), feeding back what the renderer did. The rules
/// it applies are pure decisions of their own: ``DismissalRule``, ``PreviewRule``,
/// ``RendererTermination`` and ``PresentationOutcomeRule``.
///
/// Each piece of content holds a lease on its bundle; an event that lets go of a piece names
/// its lease for release once no slot of the stage uses it.
struct PresentationStage {
    /// The content the next presentation shows.
    private(set) var prepared: PreparedContent?
    /// A newer revision fetched while a presentation was open, shown after dismissal
    /// (``StagingRule``).
    private(set) var staged: PreparedContent?
    /// The journey's content on screen (kept apart from ``prepared``).
    private(set) var presented: PreparedContent?
    /// Content shown apart from the journey's prepared revision, held from its load until its
    /// session ends: a bundle previewed by digest (``JourneyHost/preview(bundle:context:)``) or
    /// a chosen published revision (``JourneyHost/present(version:context:)``). Apart from the
    /// three above, so the refresh, the freshness rules and ``prepared`` never see it.
    private(set) var preview: PreparedContent?
    /// The open session, if any.
    private(set) var session: OpenSession?

    /// A presentation on screen: its session, the context it adds to its captures
    /// (``JourneyHost/present(context:)``) and what the content did in it.
    struct OpenSession: Equatable {
        var session: PresentationSession
        var context: [String: JSONValue]
        var activity: SessionActivity
    }

    /// Whether the journey is on screen, and in which session.
    var presentation: PresentationState { session.map { .presented($0.session) } ?? .hidden }

    /// Whether a presentation is open.
    var isPresented: Bool { session != nil }

    /// The context the open session adds to its captures; empty while hidden.
    var sessionContext: [String: JSONValue] { session?.context ?? [:] }

    /// The screen on show; nil while hidden.
    var screen: JourneyScreen? { session?.activity.screen }

    // MARK: What is prepared

    /// `next` becomes the prepared content; the old one's lease goes unless other content
    /// uses it.
    mutating func prepared(_ next: PreparedContent) -> Action {
        let old = prepared
        prepared = next
        return Action(release: unused([old]))
    }

    /// The prepared revision resolved again: it takes the new value's standing (source,
    /// renewal, staleness, removal, fallback reason) and keeps its lease and its load.
    /// - Returns: false when the prepared content is not `journey`'s revision and bundle (a
    ///   new one must be prepared).
    mutating func resolvedAgain(_ journey: PreparedJourney) -> Bool {
        guard let current = prepared, current.isSameContent(as: journey) else { return false }
        prepared?.journey = journey.preloaded(current.journey.preloaded)
        return true
    }

    /// `next` waits for the open presentation's dismissal (``StagingRule``), replacing a
    /// revision staged before.
    mutating func staged(_ next: PreparedContent) -> Action {
        let old = staged
        staged = next
        return Action(release: unused([old]))
    }

    /// The origin confirmed the revision prepared or shown: both take the new value's
    /// standing where they hold its bundle; hidden, the prepared content's readiness is
    /// published again.
    mutating func renewed(_ journey: PreparedJourney) -> Action {
        for slot in [\Self.prepared, \Self.presented] {
            guard let current = self[keyPath: slot], current.journey.bundle == journey.bundle else { continue }
            self[keyPath: slot]?.journey = journey.preloaded(current.journey.preloaded)
        }
        return session == nil && prepared?.isReady == true ? Action(then: [.publishReadiness]) : .none
    }

    /// The origin confirmed the journey is gone and the policy keeps it in service: what is
    /// prepared and shown stays, flagged removed and no longer fresh.
    mutating func flaggedRemoved() -> Action {
        for slot in [\Self.prepared, \Self.presented] where self[keyPath: slot] != nil {
            self[keyPath: slot]?.journey.removed = true
            self[keyPath: slot]?.journey.stale = true
        }
        return session == nil && prepared?.isReady == true ? Action(then: [.publishReadiness]) : .none
    }

    /// The renderer loaded the content of `lease` hidden.
    /// - Returns: whether that is still the prepared content (now loaded).
    mutating func loaded(_ lease: BundleLease) -> Bool {
        guard prepared?.lease === lease else { return false }
        prepared?.loaded = true
        return true
    }

    /// The renderer was unloaded: nothing prepared is loaded.
    mutating func rendererUnloaded() { prepared?.loaded = false }

    /// The renderer reset to the first screen, hidden, after showing `shown`'s content: the
    /// prepared content is loaded when it is that content.
    mutating func resetFinished(keeping shown: BundleLease) {
        if let current = prepared { prepared?.loaded = current.lease === shown }
    }

    /// Memory warning: a hidden renderer holding the prepared content is unloaded (the next
    /// presentation rebuilds it from the cache); an open presentation is kept.
    mutating func memoryWarning() -> Action {
        guard session == nil, prepared?.loaded == true else { return .none }
        return Action(renderer: [.unload])
    }

    /// The prepared content is dropped while what it was is still shown (another embedded
    /// default): the next presentation is prepared afresh, after dismissal.
    mutating func droppedPrepared() -> Action {
        let old = prepared
        prepared = nil
        return Action(release: unused([old]))
    }

    /// Prepared and staged content are discarded (a configuration change, a denial, a
    /// logout); what is shown stays until its session ends.
    mutating func discarded() -> Action {
        let old = [prepared, staged]
        prepared = nil
        staged = nil
        return Action(release: unused(old))
    }

    // MARK: Sessions

    /// A presentation opens as `session`, showing the prepared content (or the content held
    /// apart since ``previewLoading(_:)``: a preview, a chosen revision); its first screen is
    /// the bundle's entry document.
    mutating func opened(_ session: PresentationSession, context: [String: JSONValue], entry: String) -> Action {
        let first = JourneyScreen(id: entry)
        self.session = OpenSession(session: session, context: context, activity: SessionActivity(screen: first))
        if preview == nil { presented = prepared }
        return Action(then: [.publishScreen(first)])
    }

    /// The content sent `message`: what it means for the open session's outcome and screen;
    /// nothing while hidden.
    mutating func contentSent(_ message: BridgeMessage) -> Action {
        guard session != nil else { return .none }
        switch message {
        case .purchase: session?.activity.purchaseRequested = true
        case .restorePurchases: session?.activity.restoreRequested = true
        case .navigate(let screen):
            let next = JourneyScreen(id: screen)
            session?.activity.screen = next
            return Action(then: [.publishScreen(next)])
        default: break
        }
        return .none
    }

    /// A bundle to preview is leased and about to load: held from now on, so every way out
    /// releases it; the renderer no longer holds the prepared content, whatever happens next.
    mutating func previewLoading(_ shown: PreparedContent) -> Action {
        let old = preview
        preview = shown
        prepared?.loaded = false
        return Action(release: unused([old]))
    }

    /// The preview failed before it was shown: its lease goes, the renderer is unloaded and
    /// loads the prepared content hidden again (when that is how it is presented).
    mutating func previewFailed() -> Action {
        let shown = preview
        preview = nil
        return Action(release: unused([shown]), renderer: [.unload, .loadHidden])
    }

    /// The open session ends: its outcome (``PresentationOutcomeRule``), what left the screen
    /// and what the renderer does now, by how it ended. Nothing when no session is open.
    mutating func ended(_ exit: Exit) -> Action {
        guard let open = session else { return .none }
        session = nil
        let activity = open.activity
        let outcome = PresentationOutcomeRule.decide(
            ending: exit.ending, purchaseRequested: activity.purchaseRequested, restoreRequested: activity.restoreRequested)
        var action = Action(ended: EndedSession(session: open.session, exit: exit, outcome: outcome, screen: activity.screen))
        let shown = presented
        let heldApart = preview != nil
        // What left the stage; released at the end, once nothing the stage still holds uses it.
        var letGo = [presented, preview]
        presented = nil
        preview = nil
        switch exit {
        case .dismissed where heldApart:
            action.renderer = [.unload]
            switch PreviewRule.afterDismissal(stagedPreloaded: staged?.journey.preloaded, preparedPreloaded: prepared?.journey.preloaded) {
            case .showStaged(let preload):
                letGo.append(promoteStaged())
                if preload { action.renderer.append(.loadHidden) }
            case .loadPreparedHidden:
                action.renderer.append(.loadHidden)
            case .leaveUnloaded:
                break
            }
            action.then = [.publishReadiness, .deliverCaptures]
        case .dismissed:
            switch DismissalRule.decide(
                stagedPreloaded: staged?.journey.preloaded, hasPrepared: prepared != nil, shownPreloaded: shown?.journey.preloaded ?? false)
            {
            case .showStaged(let preload):
                letGo.append(promoteStaged())
                action.renderer = [preload ? .loadHidden : .unload]
            case .prepareAfresh:
                action.renderer = [.unload]
                action.then = [.prepareAfresh]
            case .reset:
                action.renderer = [shown.map { .reset(keeping: $0.lease) } ?? .unload]
            case .unload:
                action.renderer = [.unload]
            }
            action.then += [.publishReadiness, .deliverCaptures]
        case .stopped:
            action.renderer = [.unload]
        case .terminated:
            prepared?.loaded = false
        case .disposed:
            letGo += [prepared, staged]
            prepared = nil
            staged = nil
        }
        action.release = unused(letGo)
        return action
    }

    /// The renderer's engine ended by itself (``RendererTermination``): an open presentation
    /// ends, and nothing counts as loaded any more.
    /// - Returns: the decision, and what to do.
    mutating func rendererTerminated() -> (decision: RendererTermination, action: Action) {
        let decision = RendererTermination.decide(presented: session != nil, loaded: prepared?.loaded ?? false)
        switch decision {
        case .endPresentation:
            return (decision, ended(.terminated))
        case .markUnloaded:
            prepared?.loaded = false
            return (decision, .none)
        case .record:
            return (decision, .none)
        }
    }

    /// The host is disposed: an open session ends (by the app) and every piece of content goes.
    mutating func disposed() -> Action {
        if session != nil { return ended(.disposed) }
        let all = [prepared, staged, presented, preview]
        (prepared, staged, presented, preview) = (nil, nil, nil, nil)
        return Action(release: unused(all))
    }

    /// The staged revision becomes the prepared content (the shown one has left the stage).
    /// - Returns: the old prepared content, for release unless the new one uses its lease.
    private mutating func promoteStaged() -> PreparedContent? {
        let old = prepared
        prepared = staged
        staged = nil
        return old
    }

    // MARK: Leases

    /// The distinct leases of `pieces` that no slot of the stage uses now.
    private func unused(_ pieces: [PreparedContent?]) -> [BundleLease] {
        var leases: [BundleLease] = []
        for case let piece? in pieces where !holds(piece.lease) && !leases.contains(where: { $0 === piece.lease }) {
            leases.append(piece.lease)
        }
        return leases
    }

    /// Whether a slot of the stage uses `lease`.
    private func holds(_ lease: BundleLease) -> Bool {
        [prepared, staged, presented, preview].contains { $0?.lease === lease }
    }
}
