import Foundation
import LarderFormat
import LarderSystem

/// Writes a new bundle's patches and its patch index into an origin folder (or the staging
/// folder of an upload): for each object that replaces an object of the same path in an earlier
/// revision, a patch from each such object (``ZstdPatch``) kept when
/// ``PatchPolicy/keeps(patchSize:entrySize:objectTravel:)`` says so, at `patches/<patch hex>`; then
/// `bundles/<bundle hex>/patches.json` (``PatchIndex``) when any was kept. Both before the
/// manifest, so nothing that makes the bundle reachable is written before them.
enum PatchWriter {
    /// - Parameters:
    ///   - folder: holds the new bundle's objects (`objects/<hex>`, with their gzip copies)
    ///     and receives the patches and the index.
    ///   - source: the earlier revisions and the target holding their objects.
    /// - Returns: the paths written (patches, then the index), relative to `folder`; none when
    ///   the bundle already has an index or nothing was worth a patch.
    static func write(
        _ manifest: Manifest, bundle: Digest, source: PatchSource, in folder: String, durable: Bool
    ) throws(PublishError) -> [String] {
        let indexPath = PatchIndex.path(bundle: bundle)
        guard !FileManager.default.fileExists(atPath: folder + "/" + indexPath) else { return [] }
        let bases = try source.bases(for: manifest, bundle: bundle)
        guard !bases.isEmpty else { return [] }
        var entries: [PatchIndex.Entry] = []
        var written: [String] = []
        var done = Set<Digest>()
        for file in manifest.files where !done.contains(file.digest) && file.size <= PatchPolicy.limits.maximumOutputBytes {
            done.insert(file.digest)
            var earlier: [Manifest.File] = []
            for base in bases {
                if let old = base.file(at: file.path), old.digest != file.digest, old.size <= PatchPolicy.limits.maximumOutputBytes,
                    !earlier.contains(where: { $0.digest == old.digest })
                {
                    earlier.append(old)
                }
            }
            guard !earlier.isEmpty else { continue }
            let objectPath = folder + "/objects/" + file.digest.hex
            let target = try PublishError.local { () throws(FormatError) -> [UInt8] in
                try ReadableFile(path: objectPath).readAll(limit: Int(file.size))
            }
            let travel = try travelSize(of: file, at: objectPath)
            for old in earlier {
                guard let base = try source.object(old.digest) else { continue }
                let patch: [UInt8]
                do { patch = try ZstdPatch.make(from: base, to: target, limits: PatchPolicy.limits) } catch {
                    if error.code == .limitExceeded { continue }  // too large a window for a device: fetched whole
                    throw PublishError(.local, "could not make a patch to \(file.path): \(error)", path: objectPath)
                }
                let digest = SHA256Hasher.hash(patch)
                let entry = PatchIndex.Entry(from: old.digest, fromSize: old.size, to: file.digest, patch: digest, size: Int64(patch.count))
                guard PatchPolicy.keeps(patchSize: patch.count, entrySize: entry.encodedSize, objectTravel: travel) else { continue }
                let path = PatchIndex.path(of: digest)
                if try writeIfAbsent(patch, at: path, in: folder, durable: durable) { written.append(path) }
                entries.append(entry)
            }
        }
        guard !entries.isEmpty else { return written }
        _ = try writeIfAbsent(PatchIndex(entries: entries).bytes, at: indexPath, in: folder, durable: durable)
        return written + [indexPath]
    }

    /// What fetching the object moves without a patch: its gzip copy when it has one.
    private static func travelSize(of file: Manifest.File, at objectPath: String) throws(PublishError) -> Int64 {
        let compressed = objectPath + ".gz"
        guard FileManager.default.fileExists(atPath: compressed) else { return file.size }
        do { return try FileStatus.ofLink(compressed).size } catch { throw PublishError(.local, "cannot stat: \(error)", path: compressed) }
    }

    private static func writeIfAbsent(_ bytes: [UInt8], at path: String, in folder: String, durable: Bool) throws(PublishError) -> Bool {
        let full = folder + "/" + path
        guard !FileManager.default.fileExists(atPath: full) else { return false }
        try PublishError.local { () throws(FormatError) in
            let parent = (full as NSString).deletingLastPathComponent
            try FormatError.typed { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
            let output = try AtomicFileWriter(folder: parent, prefix: (full as NSString).lastPathComponent, durable: durable)
            try FormatError.typed { try bytes.withUnsafeBytes { try output.write($0) } }
            try output.commit(to: full)
        }
        return true
    }
}
