import Foundation
import LarderFormat

/// Publisher signatures on the host's side (``JourneyConfiguration/trustedKeys``): a fetched
/// document is checked before anything acts on it, and a stored one again before it is reused,
/// since the trusted keys may have changed since it was stored.
///
/// A stored document whose signature this host verified when it accepted it (its digest is
/// recorded beside the revision floor) needs only its key to be still trusted: an Ed25519
/// verification costs about 125 µs on the test machine (`openssl speed ed25519`: 7,500/s), a
/// twentieth of an offline launch. Any other stored document is verified in full.
extension JourneyHost {
    var trust: DocumentTrust { DocumentTrust(keys: configuration.trustedKeys) }

    /// The stored record of `scope`, without its document when no trusted key signed that
    /// document (it was stored under other keys): the host then asks the origin afresh,
    /// without a validator.
    func trustedRecord(_ scope: String) throws(HostError) -> ScopeRecord {
        var record = try store.record(scope)
        if let document = record.document, try !isTrustedSignature(document, scope: scope) {
            record.document = nil
            record.etag = nil
            record.renewed = nil
        }
        return record
    }

    /// Whether a trusted key signed the stored `document` (always, when no key is trusted).
    private func isTrustedSignature(_ document: JourneyDocument, scope: String) throws(HostError) -> Bool {
        let trust = trust
        guard trust.isEnforced else { return true }
        if let verifiedDocument, verifiedDocument.keys == trust.keys, verifiedDocument.document == document { return true }
        guard let keyID = document.signature?.keyID, trust.keys.contains(where: { $0.id == keyID }) else { return false }
        let verifiedHere = try store.accepted(scope).verified == SHA256Hasher.hash(document.canonicalBytes)
        guard verifiedHere || trust.signatureRefusal(of: document) == nil else { return false }
        verifiedDocument = (document, trust.keys)
        return true
    }

    /// The error refusing a fetched document, after noting it in the timeline; nil when the
    /// document may be acted on.
    func rejection(of document: JourneyDocument, scope: String) throws(HostError) -> HostError? {
        let trust = trust
        guard trust.isEnforced else { return nil }
        let highest = try store.highestAcceptedRevision(scope)
        guard let refusal = trust.refusal(of: document, now: clock.now, highestAccepted: highest) else { return nil }
        note(.rejected, "rejected: \(refusal)")
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
        guard document.rollout != nil else { return document.bundle }
        if let user = configuration.identity?.externalID { return document.bundle(for: user) }
        return document.bundle(for: try captureQueue().visitor())
    }

    /// A flow for an authorised document, with this identity's bundle.
    func flow(_ document: JourneyDocument, renewed: Date?, source: ContentSource, stale: Bool) throws(HostError) -> ResolvedFlow {
        ResolvedFlow(
            journey: document.journey, revision: document.revision, bundle: try assignedBundle(document), source: source,
            renewed: renewed, document: document, stale: stale)
    }
}
