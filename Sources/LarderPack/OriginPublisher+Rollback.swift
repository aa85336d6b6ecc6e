import Foundation
import LarderFormat

extension OriginPublisher {
    /// Publishes a new, higher revision of a journey that points at an earlier bundle from the
    /// journey's history (``JourneyHistory/rollbackTarget(from:to:)``): devices holding a newer
    /// revision take it as an ordinary update, and signed documents stay monotonic. The bundle
    /// must still be on the origin; no archive file is needed. The refresh interval stays the
    /// current document's.
    /// - Parameters:
    ///   - publication: the journey, and the signing key when documents are signed.
    ///   - revision: the revision whose bundle to serve again; nil for the newest earlier one
    ///     with another bundle.
    /// - Throws: ``PackFailure`` naming what is missing (no such journey, revision or bundle).
    public static func rollback(_ publication: JourneyPublication, to revision: Int64?, origin: String) throws(PackFailure) -> PublishReport {
        var changed: [String] = []
        do throws(FormatError) {
            let neverPublished = FormatError(.invalidManifest, "journey '\(publication.id)' was never published to \(origin)")
            guard try currentDocument(journey: publication.id, origin: origin) != nil else { throw neverPublished }
            // Read again holding the lock: another publish may have come first.
            let lock = try OriginLock(origin: origin)
            defer { withExtendedLifetime(lock) {} }
            guard let current = try currentDocument(journey: publication.id, origin: origin) else { throw neverPublished }
            let target = try JourneyHistory.read(journey: publication.id, origin: origin).rollbackTarget(from: current, to: revision)
            let manifest = origin + "/bundles/\(target.bundle.hex)/manifest.json"
            guard FileManager.default.fileExists(atPath: manifest) else {
                throw FormatError(
                    .missingEntry, "revision \(target.revision)'s bundle \(target.bundle) is no longer on the origin; publish its archive again",
                    path: manifest)
            }
            var publication = publication
            publication.refresh = current.refresh
            let document = try publishRevision(
                of: publication, after: current, bundle: target.bundle, rollbackTo: target.revision, origin: origin, changed: &changed)
            return PublishReport(bundles: [], journey: document, changed: changed)
        } catch {
            let code: PackError.Code = error.code == .io ? .outputFailed : .invalidConfiguration
            throw PackFailure([PackError(code, error.message, path: error.path)])
        }
    }
}
