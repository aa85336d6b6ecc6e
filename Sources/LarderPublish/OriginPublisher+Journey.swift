import Foundation
import LarderFormat

/// A journey's mutable files on a target, as read at one moment: its document and history,
/// each with the validator a replacement must expect.
struct JourneyState {
    var document: JourneyDocument?
    var documentValidator: String?
    var history: JourneyHistory
    var historyValidator: String?

    static func documentPath(_ journey: String) -> String { "journeys/\(journey).json" }

    static func read(journey: String, from target: some PublishTarget) throws(PublishError) -> JourneyState {
        let documentPath = documentPath(journey)
        var state = JourneyState(document: nil, documentValidator: nil, history: JourneyHistory(), historyValidator: nil)
        if let stored = try target.read(documentPath, limit: JourneyDocument.maximumBytes) {
            do { state.document = try JourneyDocument(decoding: stored.bytes) } catch {
                throw PublishError(error.at(path: target.name + "/" + documentPath))
            }
            state.documentValidator = stored.validator
        }
        let historyPath = JourneyHistory.path(journey: journey)
        if let stored = try target.read(historyPath, limit: JourneyHistory.maximumBytes) {
            state.history = try PublishError.local { () throws(FormatError) -> JourneyHistory in
                try JourneyHistory.parse(stored.bytes, path: target.name + "/" + historyPath)
            }
            state.historyValidator = stored.validator
        }
        return state
    }

    /// The revision after everything published: above the document's, and above any the
    /// history holds (a publisher that lost the race for the document may have added one).
    func nextRevision(journey: String, origin: String) throws(FormatError) -> Int64 {
        let last = max(document?.revision ?? 0, history.entries.map(\.revision).max() ?? 0)
        let (revision, overflow) = last.addingReportingOverflow(1)
        guard !overflow else {
            throw FormatError(
                .limitExceeded,
                "journey '\(journey)' is at revision \(Int64.max), the highest there is: no revision can follow it (devices never take a lower one); publish under another journey id",
                path: origin + "/" + Self.documentPath(journey))
        }
        return revision
    }
}

extension OriginPublisher {
    /// How many times a journey is read and written again when another publisher changed it
    /// between the read and the conditional write.
    static let journeyAttempts = 25

    /// Points a journey at `bundle` on `target`: keeps the document when nothing changes,
    /// renews its signature, or publishes a new revision; retried from a fresh read when
    /// another publisher won a conditional write. The caller holds
    /// ``PublishTarget/changingMutableFiles(_:)``.
    static func publishJourney(
        _ publication: JourneyPublication, bundle: Digest, target: some PublishTarget, changed: inout [String]
    ) throws(PublishError) -> JourneyDocument {
            var watch = ValidatorWatch()
            for attempt in 0..<journeyAttempts {
                pauseAfterLosingRace(attempt)
                let state = try JourneyState.read(journey: publication.id, from: target)
                try watch.observe(state, journey: publication.id, on: target)
                let rollout = try PublishError.local { () throws(FormatError) -> JourneyDocument.Rollout? in try Self.rollout(of: publication, bundle: bundle, after: state.document) }
                if let previous = state.document, previous.bundle == bundle, previous.refresh == publication.refresh, previous.rollout == rollout {
                    guard let signingKey = publication.signingKey else { return previous }
                    // Re-signing renews the expiry; the revision stays.
                    var renewed = previous
                    renewed.expires = iso(publication.now.addingTimeInterval(TimeInterval(publication.validity)))
                    try PublishError.local { () throws(FormatError) in try renewed.sign(with: signingKey) }
                    guard renewed != previous else { return previous }
                    let path = JourneyState.documentPath(publication.id)
                    if try target.replace(path, with: renewed.canonicalBytes, content: .document, expecting: state.documentValidator) {
                        changed.append(path)
                        return renewed
                    }
                    continue
                }
                if let document = try writeRevision(
                    of: publication, state: state, bundle: bundle, rollout: rollout, rollbackTo: nil, target: target, changed: &changed)
                {
                    return document
                }
            }
            throw contended(publication, target)
    }

    /// Writes the next revision of a journey, pointing at `bundle`, signed when the
    /// publication has a key (once its revision is known): the history first (bounded,
    /// ``JourneyHistory/bounded(for:)``), so a document is never out without its entry (a
    /// rollback reads it), then the document, each only if it is still what `state` read.
    /// - Returns: nil when another publisher changed either file first (nothing of this
    ///   revision is served then; read again and retry).
    /// - Throws: ``FormatError/Code/limitExceeded`` (as ``PublishError/Code/format``) when
    ///   the journey is at the highest revision there is (`Int64.max`).
    static func writeRevision(
        of publication: JourneyPublication, state: JourneyState, bundle: Digest, rollout: JourneyDocument.Rollout?, rollbackTo: Int64?,
        target: some PublishTarget, changed: inout [String]
    ) throws(PublishError) -> JourneyDocument? {
        let revision = try PublishError.local { () throws(FormatError) -> Int64 in try state.nextRevision(journey: publication.id, origin: target.name) }
        var document = JourneyDocument(
            journey: publication.id, revision: revision, bundle: bundle, refresh: publication.refresh, published: iso(publication.now), rollout: rollout)
        if let signingKey = publication.signingKey {
            document.expires = iso(publication.now.addingTimeInterval(TimeInterval(publication.validity)))
            try PublishError.local { () throws(FormatError) in try document.sign(with: signingKey) }
        }
        var history = state.history
        history.entries.append(
            JourneyHistory.Entry(
                revision: document.revision, bundle: bundle, published: document.published, signer: document.signature?.keyID, rollbackTo: rollbackTo))
        history = history.bounded(for: document)
        let historyPath = JourneyHistory.path(journey: publication.id)
        guard try target.replace(historyPath, with: history.bytes, content: .history, expecting: state.historyValidator) else { return nil }
        changed.append(historyPath)
        let documentPath = JourneyState.documentPath(publication.id)
        guard try target.replace(documentPath, with: document.canonicalBytes, content: .document, expecting: state.documentValidator) else { return nil }
        changed.append(documentPath)
        return document
    }

    /// A short, growing, jittered pause before trying again after losing a race (none before
    /// the first try), so two publishers do not keep colliding in step.
    static func pauseAfterLosingRace(_ attempt: Int) {
        guard attempt > 0 else { return }
        let ceiling = min(200_000, 5_000 << min(attempt, 6))
        usleep(useconds_t(UInt32.random(in: 1_000...UInt32(ceiling))))
    }

    static func contended(_ publication: JourneyPublication, _ target: some PublishTarget) -> PublishError {
        PublishError(
            .contended,
            "another publisher changed journey '\(publication.id)' before each of \(journeyAttempts) writes; try again",
            path: target.name + "/" + JourneyState.documentPath(publication.id))
    }
}
