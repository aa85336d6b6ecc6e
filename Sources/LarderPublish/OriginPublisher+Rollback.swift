import Foundation
import LarderFormat

extension OriginPublisher {
    /// Publishes a new, higher revision of a journey that points at an earlier bundle from the
    /// journey's history (``JourneyHistory/rollbackTarget(from:to:)``): devices holding a newer
    /// revision take it as an ordinary update, and signed documents stay monotonic. The bundle
    /// must still be on the origin; no archive file is needed. The refresh interval stays the
    /// current document's. The bundle is checked whole on the origin first (manifest, archive,
    /// every object): a rollback never points devices at a bundle they cannot fetch.
    /// - Parameters:
    ///   - publication: the journey, and the signing key when documents are signed.
    ///   - revision: the revision whose bundle to serve again; nil for the newest earlier one
    ///     with another bundle.
    ///   - origin: the origin folder the journey was published to.
    /// - Throws: ``PublishError`` (``PublishError/Code/invalidConfiguration``)
    ///   naming what is missing (no such journey, revision or bundle), or
    ///   ``PublishError/Code/outputFailed``.
    public static func rollback(_ publication: JourneyPublication, to revision: Int64?, origin: String) throws(PublishError) -> PublishReport {
        do throws(FormatError) {
            guard try currentDocument(journey: publication.id, origin: origin) != nil else { throw neverPublished(publication, origin) }
            let target = LocalFolderTarget(folder: origin)
            do {
                // Read again holding the lock: another publish may have come first.
                return try target.changingMutableFiles { () throws(PublishError) -> PublishReport in
                    try rollback(publication, to: revision, target: target)
                }
            } catch {
                throw error.formatError
            }
        } catch {
            let code: PublishError.Code = error.code == .io ? .outputFailed : .invalidConfiguration
            throw PublishError(code, error.message, path: error.path)
        }
    }

    /// ``rollback(_:to:origin:)`` on any target, retried from a fresh read when another
    /// publisher changed the journey meanwhile. The caller holds
    /// ``PublishTarget/changingMutableFiles(_:)``.
    public static func rollback(_ publication: JourneyPublication, to revision: Int64?, target: some PublishTarget) throws(PublishError) -> PublishReport {
        var watch = ValidatorWatch()
        for attempt in 0..<journeyAttempts {
            pauseAfterLosingRace(attempt)
            var changed: [String] = []
            let state = try JourneyState.read(journey: publication.id, from: target)
            try watch.observe(state, journey: publication.id, on: target)
            guard let current = state.document else { throw PublishError(neverPublished(publication, target.name)) }
            let chosen = try PublishError.local { () throws(FormatError) -> JourneyHistory.Entry in try state.history.rollbackTarget(from: current, to: revision) }
            try requireComplete(chosen.bundle, revision: chosen.revision, on: target)
            var publication = publication
            publication.refresh = current.refresh
            if let document = try writeRevision(
                of: publication, state: state, bundle: chosen.bundle, rollout: nil, rollbackTo: chosen.revision, target: target, changed: &changed)
            {
                return PublishReport(bundles: [], journey: document, changed: changed)
            }
        }
        throw contended(publication, target)
    }

    private static func neverPublished(_ publication: JourneyPublication, _ origin: String) -> FormatError {
        FormatError(.invalidManifest, "journey '\(publication.id)' was never published to \(origin)")
    }
}
