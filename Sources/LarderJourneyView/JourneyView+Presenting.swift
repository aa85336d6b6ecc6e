import LarderHost
import LarderWebKit

/// The view's calls to the host: each runs in a task of the view and reports back as an event
/// of its stage (``JourneyViewStage``). Calls reach the host in the order the view makes them.
extension JourneyView {
    /// Presents as attempt `attempt`: makes sure the renderer lends its web view to this view,
    /// then asks the host to present.
    func startPresenting(_ attempt: Int) {
        presenting?.cancel()
        let host = host
        let context = context
        presenting = callHost { [weak self] _ in
            do throws(HostError) {
                try await self?.lendRenderer()
                let session = try await host.present(context: context)
                guard let self else { return }
                if self.stage.attempt == attempt { self.keep(session) }
                self.handle { $0.presented(session: session.id, attempt: attempt) }
            } catch {
                self?.handle { $0.presentFailed(error, attempt: attempt) }
            }
        }
    }

    /// Waits for the end of `session` and hands its result to the stage; a failed outcome
    /// comes with what the host's timeline says about it.
    func awaitEnd(of session: String) {
        ending?.cancel()
        let host = host
        ending = Task { [weak self] in
            guard let result = await host.waitForCompletion(), result.session.id == session else { return }
            let failure = result.outcome == .failed ? Self.failure(of: result) : nil
            guard let self else { return }
            self.keep(nil)
            self.handle { $0.ended(result, failure: failure) }
        }
    }

    /// Runs `call` after the view's previous call to the host has finished.
    @discardableResult
    func callHost(_ call: @escaping @WebKitActor (JourneyHost) async -> Void) -> Task<Void, Never> {
        let previous = lastHostCall
        let host = host
        let task = Task { @WebKitActor in
            await previous?.value
            await call(host)
        }
        lastHostCall = task
        return task
    }

    /// Makes the host's renderer place its web view in this view while shown.
    /// - Throws: ``HostError/Code/renderer`` when the host's renderer is not a `WebKitRenderer`
    ///   (nothing to put on screen).
    private func lendRenderer() async throws(HostError) {
        if renderer == nil {
            let hostRenderer = await host.renderer
            guard let engine = hostRenderer as? WebKitRenderer else {
                throw HostError(
                    .renderer, "a JourneyView shows a WebKitRenderer's web view; this host renders with \(type(of: hostRenderer))")
            }
            keep(engine)
        }
        guard let renderer, renderer.currentPlacement !== slot else { return }
        renderer.setPlacement(slot)
    }

    /// The error a failed flow gets, for the app's logs.
    private static func failure(of result: PresentationResult) -> HostError {
        HostError(
            .presentationFailed,
            "the flow on show ended with outcome 'failed' (session \(result.session.id), screen \(result.screen?.id ?? "none")): "
                + "its renderer's content ended (a crash, its memory limit) or the origin denied or removed the journey; the host's timeline says which")
    }
}

extension HostError.Code {
    /// The flow on show ended with ``PresentationOutcome/failed``: its renderer's content ended,
    /// or the origin denied or removed the journey (``JourneyView``'s error state).
    public static let presentationFailed = HostError.Code("presentation-failed")
}
