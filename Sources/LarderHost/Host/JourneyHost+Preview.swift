import Foundation
import LarderCache
import LarderFormat
import LarderTransport

extension JourneyHost {
    /// Presents a given bundle for QA: from the cache, or fetched by digest from the origin.
    ///
    /// Outside the freshness rules (the configuration is not asked for) and never recorded as
    /// the journey's revision: the stored record, ``status()`` and the prepared content stay
    /// as they were, and nothing of the bundle is kept for the scope beyond the preview's own
    /// lease (a fetched bundle is unscoped, for the next sweep). The renderer gate still
    /// applies. The session has ``PresentationSession/preview`` set and revision 0; its
    /// captures carry `larder:preview: "true"` in their context. It ends with an outcome like
    /// any presentation (``waitForCompletion()``). Dismissal restores the prepared state
    ///: the next ``present(context:preload:)`` shows the prepared revision. While
    /// it is open, ``prepare(forceRefresh:)`` returns the prepared content without loading it
    /// and a refresh stages a new revision. Another open presentation of this host is
    /// dismissed first (replaced); one of another host, as ``present(context:preload:)`` does.
    /// - Throws: ``HostError/Code/bundleNotFound`` naming the digest when neither the cache
    ///   nor the origin has it, ``HostError/Code/unavailable`` when the origin cannot be
    ///   reached, ``HostError/Code/incompatible`` when this renderer cannot load it,
    ///   ``HostError/Code/deadlineExceeded`` past the presentation deadline.
    @discardableResult
    public func preview(bundle: Digest, context: [String: String] = [:]) async throws(HostError) -> PresentationSession {
        try checkUsable()
        if case .presented(let open) = presentation {
            if open.preview, open.bundle == bundle { return open }
            await close(.replaced)
        }
        let deadline = clock.now.adding(configuration.presentationDeadline)
        guard
            let session = try await Deadline.run(
                clock: clock, until: deadline, { () async throws(HostError) in try await self.showPreview(bundle, context: context) })
        else {
            note(.deadline, "preview of bundle \(bundle.hex.prefix(12)) not ready within \(DurationText.describe(configuration.presentationDeadline))")
            throw HostError(.deadlineExceeded, "the preview was not ready within \(DurationText.describe(configuration.presentationDeadline))", digest: bundle)
        }
        return session
    }

    /// While a preview is on screen: the prepared content as it is (its load would take the
    /// renderer from the preview); a forced refresh asks the origin (a new revision is staged).
    func preparedDuringPreview(forceRefresh: Bool) async throws(HostError) -> PreparedJourney {
        if forceRefresh { await refreshNow(generation: lifecycle.generation, evenInBackground: true) }
        guard let prepared = stage.prepared else {
            throw HostError(.cancelled, "a preview is on screen: journey '\(configuration.journeyID)' is prepared once it is dismissed")
        }
        return prepared.journey
    }

    private func showPreview(_ bundle: Digest, context: [String: String]) async throws(HostError) -> PresentationSession {
        let source = try await previewSource(bundle)
        let values = configuration.context.merging(context.mapValues(JSONValue.string)) { $1 }
        let session = try await showApart(
            PreparedJourney(
                journey: configuration.journeyID, revision: 0, bundle: bundle, source: source, renewed: nil, document: nil, stale: false),
            context: values, preview: true)
        note(.presented, "preview session \(session.id): bundle \(bundle.hex.prefix(12)) from \(source.rawValue), not the journey's revision")
        recordPresentation(session)
        await claimScreen()
        return session
    }

    /// Shows content apart from the prepared revision (a preview, a chosen revision), its bundle
    /// complete in the cache: the renderer gate, the renderer's start, the lease held by the
    /// stage from the load on (``PresentationStage/previewLoading(_:)``), a visible load with
    /// the context, the foreground grace and the coordinator, then the open session.
    /// - Parameters:
    ///   - journey: what is shown: its revision and bundle (revision 0 for a preview).
    ///   - context: the session's context (the host-wide context under the caller's).
    ///   - preview: a QA preview: its captures carry `larder:preview`.
    func showApart(_ journey: PreparedJourney, context: [String: JSONValue], preview: Bool) async throws(HostError) -> PresentationSession {
        let bundle = journey.bundle
        if let reason = try unfit(bundle) {
            note(.rendererGate, "\(preview ? "preview of bundle" : "revision \(journey.revision), bundle") \(bundle.hex.prefix(12)) is not loaded: \(reason)")
            throw HostError(.incompatible, "bundle \(bundle) is not loaded: \(reason)", digest: bundle)
        }
        do throws(HostError) { try await Self.value(of: startRenderer()) } catch {
            driver.startFailed()
            throw error
        }
        let lease = try await leaseBundle(bundle)
        let journeyID = journey.journey
        let shown = PreparedContent(journey: journey, content: RenderContent(journey: journeyID, revision: journey.revision, lease: lease, cache: cache))
        var session = PresentationSession(
            id: UUID().uuidString.lowercased(), journey: journeyID, revision: journey.revision, bundle: bundle, preview: preview)
        session.contextValues = context
        session.source = journey.source
        session.published = journey.published
        session.assignment = journey.assignment
        // Held from here, so every way out releases it; the renderer no longer holds the
        // prepared content, whatever happens next.
        await perform(stage.previewLoading(shown))
        do throws(HostError) {
            var content = shown.content
            content.contextValues = context
            try await driver.renderer.load(content, visible: true)
            try await appear(session)
            if Task.isCancelled { throw HostError(.cancelled, "the presentation deadline passed") }
        } catch {
            await perform(stage.previewFailed())
            throw error
        }
        let captured = preview ? context.merging([PreviewRule.captureKey: .string("true")]) { $1 } : context
        await perform(stage.opened(session, context: captured, entry: lease.manifest.entry))
        return session
    }

    /// Brings the bundle into the cache when it is not complete there: the cache, or the
    /// network when fetched by digest from the origin.
    private func previewSource(_ bundle: Digest) async throws(HostError) -> ContentSource {
        if try isComplete(bundle) { return .cache }
        do {
            let result = try await origin.fetcher(for: configuration, cache: cache).fetch(bundle)
            note(.bundleFetched, "preview bundle \(bundle.hex.prefix(12)): \(result.timelineDetail)")
        } catch {
            switch PreviewRule.missingCode(originStatus: error.status) {
            case .bundleNotFound:
                throw HostError(.bundleNotFound, "bundle \(bundle) is neither in the cache nor at the origin", status: error.status, digest: bundle, transportError: error)
            default:
                throw HostError(.unavailable, "cannot fetch bundle \(bundle) for the preview", status: error.status, digest: bundle, transportError: error)
            }
        }
        return .network
    }
}
