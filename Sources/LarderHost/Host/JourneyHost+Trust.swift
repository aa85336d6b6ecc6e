import Foundation
import LarderFormat

/// Publisher signatures on the host's side (``JourneyConfiguration/trustedKeys``): a fetched
/// document is checked before anything acts on it, and a stored one again at every use (a
/// launch, a 304, a fresh window, serving it stale), since time passes (its expiry) and the
/// trusted keys may have changed since it was stored.
///
/// A stored document whose signature this host verified when it accepted it (its digest is
/// recorded beside the revision floor) needs only its key to be still trusted: an Ed25519
/// verification costs about 125 µs on the test machine (`openssl speed ed25519`: 7,500/s), a
/// twentieth of an offline launch. Any other stored document is verified in full.
extension JourneyHost {
    var trust: DocumentTrust { DocumentTrust(keys: configuration.trustedKeys) }

    /// The stored record of `scope`, without its document when that document may not be used
    /// now (``DocumentTrust``: no trusted key signed it, it expired, it is below the revision
    /// floor): the host then asks the origin afresh, without a validator, so no 304 can renew
    /// it, and never serves it stale. The cache keeps its bundle, for a renewed signature.
    func trustedRecord(_ scope: String) throws(HostError) -> ScopeRecord {
        var record = try store.record(scope)
        if let document = record.document, let refusal = try storedRefusal(of: document, scope: scope) {
            if origin.rememberRefused(document) {
                note(.rejected, "rejected: cached revision \(document.revision): \(refusal); not used")
            }
            record.document = nil
            record.etag = nil
            record.renewed = nil
        }
        return record
    }

    /// Why the stored `document` of `scope` may not be used now; nil when it may (always, when
    /// no key is trusted).
    func storedRefusal(of document: JourneyDocument, scope: String) throws(HostError) -> DocumentTrust.Refusal? {
        let trust = trust
        guard trust.isEnforced else { return nil }
        let accepted = try store.accepted(scope)
        let remembered = origin.isVerified(document, keys: trust.keys)
        let verified = remembered || accepted.verified == SHA256Hasher.hash(document.canonicalBytes)
        let refusal = trust.refusal(of: document, now: clock.now, highestAccepted: accepted.revision, signatureVerified: verified)
        if refusal == nil, !remembered { origin.rememberVerified(document, keys: trust.keys) }
        return refusal
    }

    /// Whether `document`, already accepted, may still be acted on now (its key still trusted,
    /// not expired); its signature is not verified again. For content prepared from it.
    func isStillTrusted(_ document: JourneyDocument) -> Bool {
        trust.refusal(of: document, now: clock.now, highestAccepted: nil, signatureVerified: true) == nil
    }

    /// Whether an older revision kept for the renderer gate (``ScopeRecord/fitting``) may be
    /// served instead of the current one: signed by a key still trusted, verified again (a rare
    /// path), not expired. It is below the revision floor by design.
    func isTrustedFallback(_ document: JourneyDocument) -> Bool {
        guard let refusal = trust.refusal(of: document, now: clock.now, highestAccepted: nil) else { return true }
        note(.rendererGate, "revision \(document.revision) is not served instead: \(refusal)")
        return false
    }

    /// The error refusing a fetched document, after noting it in the timeline; nil when the
    /// document may be acted on.
    func rejection(of document: JourneyDocument, scope: String) throws(HostError) -> HostError? {
        let trust = trust
        guard trust.isEnforced else { return nil }
        let highest = try store.highestAcceptedRevision(scope)
        guard let refusal = trust.refusal(of: document, now: clock.now, highestAccepted: highest) else { return nil }
        return rejected(document, refusal)
    }

    /// The error refusing the stored document a 304 confirmed, after noting it in the timeline;
    /// nil when it may still be acted on (it may have expired while the request was on its way).
    func revalidationRejection(of document: JourneyDocument, scope: String) throws(HostError) -> HostError? {
        guard let refusal = try storedRefusal(of: document, scope: scope) else { return nil }
        return rejected(document, refusal, detail: " (a 304 for revision \(document.revision) renews nothing)")
    }

    private func rejected(_ document: JourneyDocument, _ refusal: DocumentTrust.Refusal, detail: String = "") -> HostError {
        note(.rejected, "rejected: \(refusal)" + detail)
        return HostError(
            .rejected, "revision \(document.revision) of journey '\(document.journey)' was refused: \(refusal)",
            digest: document.bundle)
    }

    /// Records a reused document as verified here, if it is not yet (it was accepted before any
    /// key was trusted, and verified in full since).
    func recordVerification(of document: JourneyDocument, for scope: String) async throws(HostError) {
        guard trust.isEnforced, try store.accepted(scope).verified != SHA256Hasher.hash(document.canonicalBytes) else { return }
        try await accept(document, for: scope)
    }

    /// Raises the scope's revision floor to an accepted document's revision, and records the
    /// document as verified when its signature was.
    func accept(_ document: JourneyDocument, for scope: String) async throws(HostError) {
        let store = store
        let verified = trust.isEnforced ? SHA256Hasher.hash(document.canonicalBytes) : nil
        _ = try await withoutWaiting { () throws(HostError) -> Bool? in
            try store.accept(revision: document.revision, verified: verified, for: scope, waiting: false) ? true : nil
        }
    }
}

/// Staged rollouts (``JourneyDocument/Rollout``): which of a document's bundles this host's
/// identity gets. Only that bundle is fetched, retained and shown.
extension JourneyHost {
    /// The bundle of `document` for this identity: its user id, or without one the anonymous
    /// visitor id of the capture queue (stable for the app's storage).
    func assignedBundle(_ document: JourneyDocument) throws(HostError) -> Digest {
        try assignment(document)?.bundle(of: document) ?? document.bundle
    }

    /// Which side of `document`'s rollout this identity is on (``RolloutAssignment``); nil
    /// without a rollout.
    func assignment(_ document: JourneyDocument) throws(HostError) -> RolloutAssignment? {
        guard document.rollout != nil else { return nil }
        if let user = configuration.identity?.externalID { return RolloutAssignment.of(document, id: user) }
        return RolloutAssignment.of(document, id: try captureQueue().visitor())
    }

    /// The stored record's flow as the cache serves it before asking the origin (its
    /// freshness is for ``freshness(of:in:)`` to decide); nil without a document.
    func cachedFlow(of record: ScopeRecord) throws(HostError) -> PreparedJourney? {
        guard let document = record.document, let renewed = record.renewed else { return nil }
        return try flow(document, renewed: renewed, source: .cache, stale: false)
    }

    /// A flow for an authorised document, with this identity's bundle.
    func flow(_ document: JourneyDocument, renewed: Date?, source: ContentSource, stale: Bool) throws(HostError) -> PreparedJourney {
        let assignment = try assignment(document)
        return PreparedJourney(
            journey: document.journey, revision: document.revision, bundle: assignment?.bundle(of: document) ?? document.bundle,
            source: source, renewed: renewed, document: document, stale: stale, published: document.published, assignment: assignment)
    }
}
