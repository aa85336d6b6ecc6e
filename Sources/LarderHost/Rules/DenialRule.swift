/// Denial and removal: a 401 or 403 discards the scope's
/// content at once; a 404 is confirmed by a second one in a row, and then discards it too, or,
/// under ``RemovedJourneyPolicy/keepServing``, keeps the cached revision in service, flagged
/// removed. A discard ends an open presentation of the current scope and drops what is
/// prepared and staged; denied content is never reused, not even offline.
///
/// A pure decision over values; ``JourneyHost`` performs what it returns.
enum DenialRule {
    /// What to do with the answer.
    enum Action: Sendable, Equatable {
        /// Forget the scope's document and validator, let the cache drop its bundles, end the
        /// presentation and discard prepared content; the next attempt authorises afresh.
        case discard(status: Int)
        /// The removal is confirmed and the cached `revision` stays in service; `firstTime`
        /// when this answer confirmed it (the removal is recorded and noted once).
        case keepServing(revision: Int64, firstTime: Bool)
        /// An unconfirmed 404: count it and back off like a failure; the next 404 confirms it.
        case awaitConfirmation
    }

    /// A 401 or 403.
    static func denied(status: Int) -> Action { .discard(status: status) }

    /// A 404.
    /// - Parameters:
    ///   - consecutive: the 404s in a row, this one included.
    ///   - policy: the configuration's removed-journey policy.
    ///   - storedRevision: the stored document's revision (it can be kept); nil without one.
    ///   - alreadyKept: the removal was already confirmed and kept.
    static func notFound(consecutive: Int, policy: RemovedJourneyPolicy, storedRevision: Int64?, alreadyKept: Bool) -> Action {
        guard consecutive >= 2 else { return .awaitConfirmation }
        if policy == .keepServing, let storedRevision { return .keepServing(revision: storedRevision, firstTime: !alreadyKept) }
        return .discard(status: 404)
    }

    /// Whether a discard ends the presentation and the prepared content: only the current
    /// scope's (a late denial for an older scope only clears its stored state).
    static func endsPresentation(discardedScope: String, currentScope: String) -> Bool { discardedScope == currentScope }
}
