/// What is prepared, what waits staged, and what is on screen, with the presentation's state,
/// the context the open session adds to its captures, and what the content did in it.
///
/// Owned by and isolated to one ``JourneyHost``; it holds no other component's state. Each
/// piece of content holds a lease on its bundle; ``retire(_:)`` releases a lease once none of
/// the three uses it.
final class PresentationStage {
    /// The content the next presentation shows.
    var prepared: JourneyHost.Prepared?
    /// A newer revision fetched while a presentation was open, shown after dismissal
    /// (``StagingRule``).
    var staged: JourneyHost.Prepared?
    /// What is on screen (kept apart from ``prepared``).
    var presented: JourneyHost.Prepared?
    /// A bundle previewed by digest (``JourneyHost/preview(bundle:context:)``) while on screen:
    /// apart from the three above, so the refresh, the freshness rules and ``prepared`` never
    /// see it.
    var preview: JourneyHost.Prepared?
    /// Whether the journey is on screen, and in which session.
    var presentation: PresentationState = .hidden
    /// The context the open presentation adds to its captures (``JourneyHost/present(context:)``).
    var sessionContext: [String: String] = [:]

    /// What the content did in the open session (``PresentationOutcomeRule``'s input) and the
    /// screen it shows; reset when the session ends.
    var activity = SessionActivity()

    /// Whether a presentation is open.
    var isPresented: Bool {
        if case .presented = presentation { return true }
        return false
    }

    /// Releases a piece of content's lease unless prepared, presented or staged content still
    /// uses it.
    func retire(_ old: JourneyHost.Prepared) {
        let lease = old.content.lease
        if prepared?.content.lease === lease || presented?.content.lease === lease || staged?.content.lease === lease
            || preview?.content.lease === lease
        {
            return
        }
        lease.release()
    }

    /// Makes `next` the prepared content, releasing the old one's lease unless other content
    /// uses it.
    func replacePrepared(with next: JourneyHost.Prepared) {
        if let old = prepared {
            prepared = nil
            retire(old)
        }
        prepared = next
    }

    /// Stages `next` for after dismissal (``StagingRule``), releasing a revision staged before.
    func stage(_ next: JourneyHost.Prepared) {
        if let old = staged {
            staged = nil
            retire(old)
        }
        staged = next
    }

    /// The staged revision becomes the prepared content once `shown` left the screen
    /// (``DismissalRule/showStaged(preload:)``); the old prepared and the shown content are
    /// released unless the new one uses their bundle.
    func promoteStaged(after shown: JourneyHost.Prepared?) {
        let old = prepared
        prepared = staged
        staged = nil
        if let old { retire(old) }
        if let shown { retire(shown) }
    }

    /// Forgets the preview on screen, releasing its lease: nothing of it stays for the scope.
    func endPreview() {
        guard let shown = preview else { return }
        preview = nil
        retire(shown)
    }

    /// Forgets what was on screen, releasing it unless other content uses it.
    func clearPresented() {
        guard let shown = presented else { return }
        presented = nil
        retire(shown)
    }

    /// Discards prepared and staged content, releasing what nothing else uses.
    func releasePrepared() {
        let old = [prepared, staged]
        prepared = nil
        staged = nil
        for case let retired? in old { retire(retired) }
    }
}

/// What the content did during the open session.
struct SessionActivity: Equatable {
    /// The content sent `purchase`.
    var purchaseRequested = false
    /// The content sent `restore`.
    var restoreRequested = false
    /// The screen on show: the entry document's at first, then what `navigate` named.
    var screen: JourneyScreen?
}
