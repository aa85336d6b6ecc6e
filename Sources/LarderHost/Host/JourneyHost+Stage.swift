import LarderCache

/// The one place ``PresentationStage``'s actions are performed: every change to what is
/// prepared, staged and shown is an event of the stage, and what it returns happens here, in
/// its order (the ended session, the leases, the renderer calls, the follow-ups). The end of a
/// session, however it ends, is this one sequence.
extension JourneyHost {
    /// Performs what the stage returned.
    /// - Returns: the ended session's outcome and last screen ("completed on screen
    ///   screen-2.html"), for a timeline entry of the caller's; nil when no session ended.
    @discardableResult
    func perform(_ action: PresentationStage.Action) async -> String? {
        if let ended = action.ended { finish(ended) }
        observation.presentationChanged(to: stage.presentation)
        for lease in action.release { lease.release() }
        for call in action.renderer {
            switch call {
            case .unload:
                await driver.renderer.unload()
                stage.rendererUnloaded()
            case .reset(let shown):
                do {
                    try await driver.renderer.reset()
                    stage.resetFinished(keeping: shown)
                } catch {
                    await driver.renderer.unload()
                    stage.rendererUnloaded()
                }
            case .loadHidden:
                await loadHiddenRecordingFailure()
            }
        }
        for followUp in action.then {
            switch followUp {
            case .publishScreen(let screen):
                observation.screenChanged(to: screen)
            case .prepareAfresh:
                setReadiness(.idle)
                prepareInBackground()
            case .publishReadiness:
                if let prepared = stage.prepared { setReadiness(prepared.isReady ? .ready(prepared.journey) : .unloaded(prepared.journey)) }
            case .deliverCaptures:
                drainCaptures(.dismissed)
            }
        }
        return action.ended?.summary
    }

    /// Closes an ended session's record (``PresentationOutcomeRule``): publishes its result,
    /// leaves the coordinator, ends the bridge's counting period, publishes the hidden state
    /// and says in the timeline how it ended (the renderer's termination and disposal say so
    /// in their own entries).
    private func finish(_ ended: PresentationStage.EndedSession) {
        observation.screenChanged(to: nil)
        seat.release()
        observation.presentationEnded(
            PresentationResult(session: ended.session, outcome: ended.outcome, screen: ended.screen, ended: clock.now))
        if ended.endsBridgePeriod { endBridgePeriod(of: ended.session) }
        observation.presentationChanged(to: stage.presentation)
        let id = ended.session.id
        switch ended.exit {
        case .dismissed:
            note(.dismissed, (ended.session.preview ? "preview session " : "session ") + "\(id): " + ended.summary)
        case .stopped:
            note(.discarded, "session \(id) stopped: " + ended.summary)
        case .terminated, .disposed:
            break
        }
    }

    /// Ends the open presentation as `exit` says; nothing when none is open.
    /// - Returns: the outcome and last screen; nil when no session was open.
    @discardableResult
    func endSession(_ exit: PresentationStage.Exit) async -> String? {
        await perform(stage.ended(exit))
    }
}
