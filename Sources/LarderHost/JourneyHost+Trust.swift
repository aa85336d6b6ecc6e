import Foundation
import LarderFormat

/// Publisher signatures on the host's side (``JourneyConfiguration/trustedKeys``): a fetched
/// document is checked before anything acts on it, and a stored one again before it is reused,
/// since the trusted keys may have changed since it was stored.
extension JourneyHost {
    var trust: DocumentTrust { DocumentTrust(keys: configuration.trustedKeys) }

    /// The stored record of `scope`, without its document when no trusted key signed that
    /// document (it was stored under other keys): the host then asks the origin afresh,
    /// without a validator.
    func trustedRecord(_ scope: String) throws(HostError) -> ScopeRecord {
        var record = try store.record(scope)
        if let document = record.document, trust.signatureRefusal(of: document) != nil {
            record.document = nil
            record.etag = nil
            record.renewed = nil
        }
        return record
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

    /// Raises the scope's revision floor to an accepted document's revision.
    func acceptRevision(_ revision: Int64, for scope: String) async throws(HostError) {
        let store = store
        _ = try await withoutWaiting { () throws(HostError) -> Bool? in
            try store.accept(revision: revision, for: scope, waiting: false) ? true : nil
        }
    }
}
