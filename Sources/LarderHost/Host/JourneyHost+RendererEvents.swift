extension JourneyHost {
    /// Starts handling what happens to the renderer by itself, in order (once).
    func listenToRendererEvents() {
        guard let incoming = driver.takeRendererEvents() else { return }
        driver.rendererEventTask = Task { [weak self] in
            for await event in incoming {
                guard let self else { return }
                await self.handle(event)
            }
        }
    }

    /// Performs ``RendererTermination``: the next preparation loads the content again.
    func handle(_ event: RendererEvent) async {
        guard !disposed, case .terminated(let reason) = event else { return }
        let isPresented: Bool
        if case .presented = presentation { isPresented = true } else { isPresented = false }
        switch RendererTermination.decide(presented: isPresented, loaded: stage.prepared?.loaded ?? false) {
        case .endPresentation:
            let outcome = finishSession(.failure)
            presentation = .hidden
            stage.clearPresented()
            stage.prepared?.loaded = false
            note(.rendererTerminated, "\(reason): the presentation ended (\(outcome ?? "failed")); the next preparation loads it again")
        case .markUnloaded:
            stage.prepared?.loaded = false
            note(.rendererTerminated, "\(reason): the next preparation loads it again")
        case .record:
            note(.rendererTerminated, reason)
        }
        if let prepared = stage.prepared, prepared.journey.preloaded { setReadiness(.unloaded(prepared.journey)) }
    }
}
