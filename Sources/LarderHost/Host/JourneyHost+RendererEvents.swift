extension JourneyHost {
    /// Starts handling what happens to the renderer by itself, in order (once).
    func listenToRendererEvents() {
        guard let incoming = driver.takeRendererEvents() else { return }
        driver.listen(events: Task { [weak self] in
            for await event in incoming {
                guard let self else { return }
                await self.handle(event)
            }
        })
    }

    /// Performs ``RendererTermination`` (the stage decides): the next preparation loads the
    /// content again.
    func handle(_ event: RendererEvent) async {
        guard !lifecycle.isDisposed, case .terminated(let reason) = event else { return }
        let (decision, action) = stage.rendererTerminated()
        let outcome = await perform(action)
        switch decision {
        case .endPresentation:
            note(.rendererTerminated, "\(reason): the presentation ended (\(outcome ?? "failed")); the next preparation loads it again")
        case .markUnloaded:
            note(.rendererTerminated, "\(reason): the next preparation loads it again")
        case .record:
            note(.rendererTerminated, reason)
        }
        if let prepared = stage.prepared, prepared.journey.preloaded { setReadiness(.unloaded(prepared.journey)) }
    }
}
