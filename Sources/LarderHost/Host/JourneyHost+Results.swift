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
    public var currentScreen: JourneyScreen? { stage.screen }

    /// The screen on show (``currentScreen``), then every change, until the host is disposed.
    public func screenUpdates() -> AsyncStream<JourneyScreen?> { observation.screenUpdates() }

    /// Takes the screen in the coordinator; a host presenting until now ends as replaced.
    func claimScreen() async {
        let displaced = seat.claim { [weak self] in await self?.close(.replaced) }
        await displaced?.replace()
    }

    /// Ends another host's presentation as replaced before this one shows.
    func replaceOtherPresentation() async {
        await seat.otherPresenter()?.replace()
    }
}
