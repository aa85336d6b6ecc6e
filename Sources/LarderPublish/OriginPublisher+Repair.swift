import Foundation
import LarderFormat
import LarderSystem

/// A file a published bundle needs on its origin, and the size it must have there (nil: any).
struct NeededFile: Sendable, Equatable {
    var path: String
    var size: Int64?
}

extension OriginPublisher {
    /// What devices fetch of a bundle besides its manifest (which the caller has asked for
    /// already): each object (``Manifest/File/size`` bytes) and the archive (its size when
    /// known); not the gzip copies, which only save bytes.
    static func neededFiles(of manifest: Manifest, digest: Digest, archiveSize: Int64?) -> [NeededFile] {
        var seen = Set<Digest>()
        var files: [NeededFile] = []
        for file in manifest.files where seen.insert(file.digest).inserted {
            files.append(NeededFile(path: "objects/" + file.digest.hex, size: file.size))
        }
        files.append(NeededFile(path: "bundles/\(digest.hex).tar.gz", size: archiveSize))
        return files
    }

    /// The needed files the target does not have, or has at another size: one ``PublishTarget/size(of:)``
    /// (a HEAD in a bucket) each, ``uploadWidth`` at a time, in the order given.
    /// - Throws: the first error a question met.
    static func lostFiles(_ needed: [NeededFile], on target: some PublishTarget) throws(PublishError) -> [String] {
        let outcomes = needed.parallelMap(width: uploadWidth) { file -> Result<Bool, PublishError> in
            do throws(PublishError) {
                let found = try target.size(of: file.path)
                return .success(found == nil || (file.size != nil && found != file.size))
            } catch {
                return .failure(error)
            }
        }
        var lost: [String] = []
        for (file, outcome) in zip(needed, outcomes) {
            switch outcome {
            case .success(true): lost.append(file.path)
            case .success(false): continue
            case .failure(let error): throw error
            }
        }
        return lost
    }

    /// Checks, before a journey is pointed at a bundle already on the target (a rollback),
    /// that devices can fetch it: its manifest, archive and every object there.
    /// - Throws: ``FormatError/Code/missingEntry`` (as ``PublishError/Code/format``) naming
    ///   what is lost and how to send it again.
    static func requireComplete(_ bundle: Digest, revision: Int64, on target: some PublishTarget) throws(PublishError) {
        let manifestPath = "bundles/\(bundle.hex)/manifest.json"
        guard let stored = try target.read(manifestPath, limit: Manifest.maximumBytes) else {
            throw PublishError(
                FormatError(
                    .missingEntry, "revision \(revision)'s bundle \(bundle) is no longer on the origin; publish its archive again",
                    path: target.name + "/" + manifestPath))
        }
        let manifest = try PublishError.local { () throws(FormatError) -> Manifest in
            do throws(FormatError) { return try VerifiedManifest(decoding: stored.bytes, expecting: bundle).manifest } catch where error.code == .digestMismatch {
                throw FormatError(.digestMismatch, "the manifest on the origin does not hash to \(bundle); publish its archive again", path: target.name + "/" + manifestPath)
            }
        }
        let lost = try lostFiles(neededFiles(of: manifest, digest: bundle, archiveSize: nil), on: target)
        guard let first = lost.first else { return }
        throw PublishError(
            FormatError(
                .missingEntry,
                "revision \(revision)'s bundle \(bundle) is incomplete on the origin (\(lost.count) file\(lost.count == 1 ? "" : "s") lost, \(first) first), so devices could not fetch it; publish its archive again (larder publish <archive> --origin \(target.name)), then roll back",
                path: target.name + "/" + first))
    }
}
