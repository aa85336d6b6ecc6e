import Foundation

extension JourneyHost {
    /// Every presentation result from now on (none of the past), as each presentation ends,
    /// until the host is disposed (its last presentation's result comes first).
    public func presentationResults() -> AsyncStream<PresentationResult> { observation.presentationResults() }

    /// The result of the open presentation, once it ends; when none is open, at once the
    /// result of the one that ended last (nil before the first ended), so a call just after
    /// the end is answered too. A disposal ends the open presentation (ended by the app), so
    /// the wait is bounded by the host's life; nil when the calling task is cancelled first.
    public func waitForCompletion() async -> PresentationResult? {
        guard case .presented(let session) = presentation else { return observation.lastResult }
        for await result in observation.presentationResults() where result.session == session { return result }
        return observation.lastResult?.session == session ? observation.lastResult : nil
    }

    /// The screen on show: the bundle's entry document when a presentation opens, then each
    /// screen a `navigate` message names; nil while hidden (before the first screen appears and
    /// after a presentation ended).
    public var currentScreen: JourneyScreen? { stage.activity.screen }

    /// The screen on show (``currentScreen``), then every change, until the host is disposed.
    public func screenUpdates() -> AsyncStream<JourneyScreen?> { observation.screenUpdates() }

    /// Notes what a message from the content means for the open session's outcome and screen;
    /// nothing while hidden.
    func recordActivity(_ message: BridgeMessage) {
        guard stage.isPresented else { return }
        switch message {
        case .purchase: stage.activity.purchaseRequested = true
        case .restorePurchases: stage.activity.restoreRequested = true
        case .navigate(let screen): showScreen(JourneyScreen(id: screen))
        default: break
        }
    }

    /// Opens the session's record: the first screen is the bundle's entry document.
    func beginSession(entry: String) {
        stage.activity = SessionActivity()
        showScreen(JourneyScreen(id: entry))
    }

    private func showScreen(_ screen: JourneyScreen?) {
        stage.activity.screen = screen
        observation.screenChanged(to: screen)
    }

    /// Ends the open session's record (``PresentationOutcomeRule``): publishes its result and
    /// leaves the coordinator. Call while ``presentation`` still holds the session; nothing
    /// when none is open.
    /// - Returns: the outcome and last screen, for the timeline entry the caller writes
    ///   ("dismissed on screen screen-2.html"); nil when no session was open.
    @discardableResult
    func finishSession(_ ending: PresentationOutcomeRule.Ending) -> String? {
        guard case .presented(let session) = presentation else { return nil }
        let activity = stage.activity
        let outcome = PresentationOutcomeRule.decide(
            ending: ending, purchaseRequested: activity.purchaseRequested, restoreRequested: activity.restoreRequested)
        stage.activity = SessionActivity()
        observation.screenChanged(to: nil)
        coordinator.release(presenterID)
        observation.presentationEnded(PresentationResult(session: session, outcome: outcome, screen: activity.screen, ended: clock.now))
        return outcome.rawValue + (activity.screen.map { " on screen \($0.id)" } ?? "")
    }

    /// Takes the screen in the coordinator; a host presenting until now ends as replaced.
    func claimScreen() async {
        let displaced = coordinator.claim(presenterID) { [weak self] in await self?.close(.replaced) }
        await displaced?.replace()
    }

    /// Ends another host's presentation as replaced before this one shows.
    func replaceOtherPresentation() async {
        await coordinator.current(excluding: presenterID)?.replace()
    }
}
