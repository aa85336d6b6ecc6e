import Foundation

extension JourneyHost {
    /// Switches to another configuration, every field of it at once; what each change
    /// invalidates:
    /// - key, journey, identity or origin (the scope): prepared content is discarded (so a
    ///   journey prepared for one person is never shown to another), an open presentation of
    ///   the old scope ends, late answers for the old scope are dropped, and the new scope is
    ///   prepared;
    /// - the embedded default: the new one (or none) ends the fallback chain from now on;
    ///   content prepared from the old one is prepared again, at once while hidden, after its
    ///   dismissal while shown;
    /// - the download limits: the next bundle fetch uses them;
    /// - the trusted keys: the stored document is verified again; when no trusted key signed
    ///   it, content is discarded, shown or not, and the scope prepared afresh (the origin is
    ///   asked);
    /// - the removed-journey policy from keep to discard: content kept in service after a
    ///   confirmed 404 is discarded;
    /// - the deadlines and the capture settings: from their next use (the next fetch,
    ///   presentation, event or delivery); nothing prepared is invalidated.
    public func updateConfiguration(_ new: JourneyConfiguration) async {
        guard !lifecycle.isDisposed, new != configuration else { return }
        let change = ConfigurationChange.between(configuration, new)
        configuration = new
        if change.contains(.downloads) { origin.retireFetcher() }
        if change.contains(.embeddedDefault) { lifecycle.embeddedChanged() }
        if change.contains(.scope) { return await invalidate("configuration changed; prepared content discarded") }
        if change.contains(.trust), await discardUntrusted() { return }
        if change.contains(.keptRemoval), await discardKeptAfterRemoval() { return }
        if change.contains(.embeddedDefault) { await replaceEmbeddedContent() }
    }

    /// Discards prepared, staged and shown content (an open presentation ends), drops the
    /// answers on their way, and prepares again in the background.
    func invalidate(_ why: String) async {
        perform(lifecycle.invalidated())
        await schedule { $0.cancelled() }
        note(.invalidated, why)
        await endSession(.stopped(.app))
        await perform(stage.discarded())
        setReadiness(.idle)
        prepareInBackground()
    }

    /// Starts ``prepare()`` without waiting for it.
    func prepareInBackground() {
        Task { [weak self] in
            do { _ = try await self?.prepare() } catch {
                // prepare() records the failure in readiness and the timeline.
            }
        }
    }

    /// New trusted keys: the stored document is verified again against them
    /// (``trustedRecord(_:)``); when they refuse it, what was prepared, staged or shown from the
    /// origin is discarded and the scope prepared afresh (the origin is asked, without a
    /// validator).
    /// - Returns: whether it discarded.
    private func discardUntrusted() async -> Bool {
        let scope = configuration.scope
        let refused: Bool
        do { refused = try store.record(scope).document != nil && trustedRecord(scope).document == nil } catch {
            note(.failed, "cannot read the host state: \(error)")
            return false
        }
        guard refused else { return false }
        lifecycle.deauthorised(scope)
        await invalidate("trusted keys changed: the stored document is not signed by a trusted key; content discarded")
        return true
    }

    /// The removed-journey policy is now discard: content kept in service after a confirmed
    /// 404 goes, as a confirmed 404 under discard does.
    /// - Returns: whether there was such content.
    private func discardKeptAfterRemoval() async -> Bool {
        let scope = configuration.scope
        do {
            guard try store.record(scope).isRemovedButKept else { return false }
            perform(lifecycle.invalidated())
            note(.invalidated, "removed-journey policy changed to discard: the content kept after the confirmed 404 is discarded")
            try await discard(scope: scope, status: 404, journey: configuration.journeyID)
        } catch {
            note(.failed, "cannot discard the content kept after the removal: \(error)")
        }
        return true
    }

    /// Another embedded default: content prepared from the old one is prepared again: now
    /// when hidden; when shown, once dismissed (``dismiss()`` then finds nothing prepared).
    private func replaceEmbeddedContent() async {
        guard stage.prepared?.journey.source == .embedded else { return }
        guard case .presented = presentation else {
            return await invalidate("another embedded default: content prepared from the old one is prepared again")
        }
        note(.invalidated, "another embedded default: the open presentation keeps the old one, the next is prepared again")
        await perform(stage.droppedPrepared())
    }
}
