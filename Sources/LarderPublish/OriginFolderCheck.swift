import Foundation
import LarderFormat
import LarderSystem

/// Checks a file of an origin folder before `larder publish --from <folder>` sends it: that it
/// is what its name says, read where it is. Every folder on the way under the origin folder
/// must be a real folder and the file a regular file, opened without following a symbolic
/// link (`O_NOFOLLOW`), so a link planted in the folder (`bundles/<hex>.tar.gz ->
/// ~/.aws/credentials`) sends nothing; and each content-addressed file must be its name:
///
/// - `objects/<hex>`: bytes that hash to `<hex>`;
/// - `objects/<hex>.gz`: a gzip stream that inflates to the bytes `<hex>` names (no larger
///   than `objects/<hex>` beside it);
/// - `bundles/<hex>.tar.gz`: a bundle archive whose manifest hashes to `<hex>`, every file
///   in it as the manifest lists it (``BundleVerifier``);
/// - `bundles/<hex>/manifest.json`: bytes that hash to `<hex>` and decode as a manifest.
///
/// The digest returned is of the bytes checked; the upload signs it as the payload hash, and
/// S3Target's request holds back the last byte unless what it sends hashes to it.
enum OriginFolderCheck {
    /// - Parameters:
    ///   - relative: the origin path, e.g. `objects/<hex>`.
    ///   - folder: the origin folder.
    /// - Returns: the SHA-256 of the file's bytes as checked.
    /// - Throws: ``PublishError/Code/sourceMismatch`` naming the file and what is wrong.
    static func check(_ relative: String, in folder: String) throws(PublishError) -> Digest {
        let full = folder + "/" + relative
        try checkFolders(of: relative, in: folder)
        let parts = relative.split(separator: "/").map(String.init)
        let notOrigin = PublishError(
            .sourceMismatch, "is not a file of an origin (objects/<hex>, objects/<hex>.gz, bundles/<hex>.tar.gz, bundles/<hex>/manifest.json, patches/<hex>, bundles/<hex>/patches.json)", path: full)
        guard parts.count >= 2 else { throw notOrigin }
        let named: Digest
        do { named = try Digest(hex: parts[1].prefix(64)) } catch { throw notOrigin }
        let file = try mismatch(full) { () throws(FormatError) -> ReadableFile in try ReadableFile(path: full, followingLinks: false) }
        let raw = SHA256Hasher()
        let read: ArchiveReader.Source = { (buffer) throws(FormatError) -> Int in
            let count = try file.read(into: buffer)
            raw.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            return count
        }
        switch (parts[0], parts.count, parts[1].count) {
        case ("objects", 2, 64):
            let digest = try mismatch(full) { () throws(FormatError) -> Digest in try file.sizeAndDigest().digest }
            guard digest == named else { throw named.differs(digest, full) }
            return digest
        case ("objects", 2, 67) where relative.hasSuffix(".gz"):
            let plain = try mismatch(full) { () throws(FormatError) -> FileStatus in
                let status: FileStatus
                do { status = try FileStatus.ofLink(folder + "/objects/" + named.hex) } catch {
                    throw FormatError(.missingEntry, "has no objects/\(named.hex) beside it: \(error)", path: full)
                }
                guard status.kind == .regular else { throw FormatError(.missingEntry, "objects/\(named.hex) beside it is not a regular file", path: full) }
                return status
            }
            let (inflated, _) = try mismatch(full) { () throws(FormatError) -> (digest: Digest, size: Int64) in
                try GzipContent.digest(limit: plain.size, path: full, source: read)
            }
            guard inflated == named else { throw named.differs(inflated, full, inflated: true) }
            return raw.finalize()
        case ("bundles", 2, 71) where relative.hasSuffix(".tar.gz"):
            let report = BundleVerifier.verify(expectedDigest: named, displayName: full, source: read)
            if let problem = report.problems.first ?? (report.manifest == nil ? FormatError(.missingEntry, "no manifest") : nil) {
                throw PublishError(.sourceMismatch, "is not the bundle archive it is named for: \(problem)", path: full, cause: problem)
            }
            // The verifier reads to the end of the gzip stream; anything after it is read too.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
            defer { buffer.deallocate() }
            while try mismatch(full, { () throws(FormatError) -> Int in try read(buffer) }) > 0 {}
            return raw.finalize()
        case ("bundles", 3, 64) where parts[2] == "manifest.json":
            return try manifest(of: file, named: named).digest
        case ("patches", 2, 64):
            let digest = try mismatch(full) { () throws(FormatError) -> Digest in try file.sizeAndDigest().digest }
            guard digest == named else { throw named.differs(digest, full) }
            return digest
        case ("bundles", 3, 64) where parts[2] == "patches.json":
            return try patchIndex(of: file, path: full).digest
        default:
            throw notOrigin
        }
    }

    /// Reads `bundles/<hex>/patches.json` of `folder` as ``check(_:in:)`` checks it.
    /// - Returns: the index and the SHA-256 of its bytes.
    static func patchIndex(_ relative: String, in folder: String) throws(PublishError) -> (index: PatchIndex, digest: Digest) {
        let full = folder + "/" + relative
        try checkFolders(of: relative, in: folder)
        return try patchIndex(of: try mismatch(full) { () throws(FormatError) -> ReadableFile in try ReadableFile(path: full, followingLinks: false) }, path: full)
    }

    private static func patchIndex(of file: ReadableFile, path full: String) throws(PublishError) -> (index: PatchIndex, digest: Digest) {
        let bytes = try mismatch(full) { () throws(FormatError) -> [UInt8] in try file.readAll(limit: PatchIndex.maximumBytes) }
        do { return (try PatchIndex(decoding: bytes), SHA256Hasher.hash(bytes)) } catch {
            throw PublishError(.sourceMismatch, "is not a patch index: \(error)", path: full, cause: error)
        }
    }

    /// Reads `bundles/<hex>/manifest.json` of `folder` as ``check(_:in:)`` checks it.
    /// - Returns: the manifest, its digest (the name's) and its size in bytes.
    static func manifest(_ relative: String, in folder: String) throws(PublishError) -> (manifest: Manifest, digest: Digest, size: Int64) {
        let full = folder + "/" + relative
        try checkFolders(of: relative, in: folder)
        let parts = relative.split(separator: "/")
        guard parts.count == 3, parts[0] == "bundles", parts[2] == "manifest.json" else {
            throw PublishError(.sourceMismatch, "is not a bundle's manifest (bundles/<hex>/manifest.json)", path: full)
        }
        let named = try mismatch(full) { () throws(FormatError) -> Digest in try Digest(hex: parts[1]) }
        let file = try mismatch(full) { () throws(FormatError) -> ReadableFile in try ReadableFile(path: full, followingLinks: false) }
        return try manifest(of: file, named: named)
    }

    private static func manifest(of file: ReadableFile, named: Digest) throws(PublishError) -> (manifest: Manifest, digest: Digest, size: Int64) {
        let bytes = try mismatch(file.path) { () throws(FormatError) -> [UInt8] in try file.readAll(limit: Manifest.maximumBytes) }
        let digest = SHA256Hasher.hash(bytes)
        guard digest == named else { throw named.differs(digest, file.path) }
        let manifest = try mismatch(file.path) { () throws(FormatError) -> Manifest in try Manifest(decoding: bytes) }
        return (manifest, digest, Int64(bytes.count))
    }

    /// Refuses a symbolic link (or anything but a folder) for the origin folder's subfolders on
    /// the way to `relative`: a linked `objects/` would read files from anywhere.
    static func checkFolders(of relative: String, in folder: String) throws(PublishError) {
        var path = folder
        for part in relative.split(separator: "/").dropLast() {
            path += "/" + part
            let status: FileStatus
            do { status = try FileStatus.ofLink(path) } catch {
                throw PublishError(.sourceMismatch, "cannot stat the folder: \(error)", path: path)
            }
            guard status.kind == .folder else {
                throw PublishError(.sourceMismatch, "is not a folder (\(status.kind)): an origin folder's subfolders are read where they are, never through a link", path: path)
            }
        }
    }

    /// Runs a read or check of `path`, its failure a ``PublishError/Code/sourceMismatch``.
    private static func mismatch<T>(_ path: String, _ body: () throws(FormatError) -> T) throws(PublishError) -> T {
        do { return try body() } catch {
            throw PublishError(.sourceMismatch, error.message, path: path, cause: error)
        }
    }
}

extension Digest {
    /// The error for a file named by this digest whose bytes hash to `found`.
    fileprivate func differs(_ found: Digest, _ path: String, inflated: Bool = false) -> PublishError {
        PublishError(
            .sourceMismatch,
            "is named for \(self) but \(inflated ? "inflates to bytes that hash" : "hashes") to \(found): it is not the file publish wrote; nothing was sent",
            path: path)
    }
}
