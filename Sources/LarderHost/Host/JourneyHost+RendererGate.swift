import LarderCache
import LarderFormat

extension JourneyHost {
    /// Applies the renderer gate to a resolved flow: content whose bundle this host's renderer
    /// cannot load (a newer renderer protocol, a capability it lacks) is never loaded; the host
    /// falls back to an older cached revision that fits (and that the trusted keys still
    /// accept: it expires too), then to the embedded default, and says why in the flow and the
    /// timeline.
    /// - Throws: ``HostError/Code/incompatible`` when nothing fits.
    func gated(_ flow: PreparedJourney) async throws(HostError) -> PreparedJourney {
        guard let reason = try unfit(flow.bundle) else { return flow }
        let what = flow.source == .embedded ? "the embedded default" : "revision \(flow.revision)"
        note(.rendererGate, "\(what) (bundle \(flow.bundle.hex.prefix(12))) is not loaded: \(reason)")
        if flow.source != .embedded, let older = try store.record(configuration.scope).fitting,
            case let olderBundle = try assignedBundle(older), olderBundle != flow.bundle, try isComplete(olderBundle),
            try unfit(olderBundle) == nil, isTrustedFallback(older)
        {
            note(.rendererGate, "revision \(older.revision) from the cache instead")
            var fallback = try self.flow(older, renewed: flow.renewed, source: .cache, stale: flow.stale)
            fallback.removed = flow.removed
            fallback.fallbackReason = "revision \(flow.revision) is not loaded: \(reason); revision \(older.revision) is served instead"
            return fallback
        }
        if flow.source != .embedded, let embedded = try await embeddedDefault(), try unfit(embedded) == nil {
            note(.rendererGate, "the embedded default instead")
            var fallback = PreparedJourney(
                journey: flow.journey, revision: 0, bundle: embedded, source: .embedded, renewed: nil, document: nil, stale: false)
            fallback.fallbackReason = "revision \(flow.revision) is not loaded: \(reason); the embedded default is served instead"
            return fallback
        }
        throw HostError(
            .incompatible,
            "journey '\(flow.journey)': \(what) is not loaded: \(reason); no older cached revision or embedded default fits",
            digest: flow.bundle)
    }

    /// Why this host's renderer cannot load a cached bundle; nil when it can. Remembered per
    /// bundle (a bundle never changes, nor does the host's renderer), so a launch decodes a
    /// manifest for the gate once.
    func unfit(_ bundle: Digest) throws(HostError) -> String? { try driver.unfit(bundle, in: cache) }

    /// The revision to keep beside a newly authorised `document` whose bundle (this identity's,
    /// during a rollout) this renderer cannot load: the previous document when it fits and is cached, else the one kept
    /// before. Nil when the new bundle fits (nothing older is needed).
    func fittingRevision(besides document: JourneyDocument, previous: ScopeRecord) throws(HostError) -> JourneyDocument? {
        let bundle = try assignedBundle(document)
        guard try unfit(bundle) != nil else { return nil }
        for candidate in [previous.document, previous.fitting] {
            guard let candidate, case let older = try assignedBundle(candidate), older != bundle, try isComplete(older) else { continue }
            if try unfit(older) == nil { return candidate }
        }
        return nil
    }
}
