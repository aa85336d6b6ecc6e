import LarderFormat
#if canImport(Glibc)
import Glibc
#endif

extension LarderCache {
    /// The objects of a manifest that the cache does not hold: what a fetch must download.
    public func missingObjects(of manifest: Manifest) throws(CacheError) -> Set<Digest> {
        let all = Set(manifest.files.map(\.digest))
        return all.subtracting(storedObjects(all))
    }

    /// Installs a bundle from its manifest bytes and files holding the objects the cache lacks
    /// (downloaded one by one). Each file is hashed as it is copied in and must match its
    /// digest; objects already stored are reused. Nothing is visible until the bundle commits.
    /// - Parameters:
    ///   - manifestBytes: the canonical manifest; it must hash to `expected`.
    ///   - objectFiles: a file for every object ``missingObjects(of:)`` names (more is fine).
    ///   - adopting: move the files into the cache instead of copying them (they must be on the
    ///     cache's file system, as its `downloads/` are; others are copied); each is hashed
    ///     once moved, where no one else writes. The caller's files are gone afterwards.
    /// - Throws: ``CacheError/Code/bundleDigestMismatch``, or ``CacheError/Code/invalidBundle``
    ///   naming the object that is missing or does not match.
    public func install(
        manifestBytes: [UInt8], expected: Digest, objectFiles: [Digest: String], adopting: Bool = false
    ) throws(CacheError) -> InstallResult {
        let digest = SHA256Hasher.hash(manifestBytes)
        guard digest == expected else {
            throw CacheError(.bundleDigestMismatch, "the manifest hashes to \(digest), not to the digest it was fetched for", digest: expected)
        }
        let manifest: Manifest
        do { manifest = try Manifest(decoding: manifestBytes) } catch {
            throw CacheError(.invalidBundle, "the manifest was refused", digest: digest, cause: error)
        }
        return try coalesced(manifest, digest: digest, embedded: false) { () throws(CacheError) in
            guard let lock = try FileLock.acquire(layout.sweepLock, .shared) else {
                throw CacheError(.storage, "cannot take the install lock", path: layout.sweepLock)
            }
            defer { withExtendedLifetime(lock) {} }
            let staging = try StagingArea(layout: layout)
            defer { staging.remove() }
            var sizes: [Digest: (size: Int64, path: String)] = [:]
            for file in manifest.files { sizes[file.digest] = (file.size, file.path) }
            var staged: [Digest: String] = [:]
            var bytesWritten: Int64 = 0
            for object in try missingObjects(of: manifest).sorted() {
                let (size, path) = sizes[object]!
                guard let source = objectFiles[object] else {
                    throw CacheError(
                        .invalidBundle, "no file was given for '\(path)'", digest: object,
                        cause: FormatError(.missingEntry, "object not provided", entry: path))
                }
                if adopting, let moved = try staging.adopt(source) {
                    try checkStaged(moved, as: object, size: size, entry: path)
                    staged[object] = moved
                } else {
                    staged[object] = try copyVerified(source, as: object, size: size, entry: path, into: staging)
                }
                bytesWritten += size
            }
            try commit(manifest, bytes: manifestBytes, digest: digest, embedded: false, staged: staged, staging: staging)
            return InstallResult(
                bundle: digest, name: manifest.name, alreadyPresent: false, objectsWritten: staged.count,
                bytesWritten: bytesWritten, evicted: [])
        }
    }

    /// Hashes a file moved into staging; it must have the object's size and digest.
    private func checkStaged(_ path: String, as object: Digest, size expected: Int64, entry: String) throws(CacheError) {
        let (size, actual): (Int64, Digest)
        do throws(FormatError) {
            let input = try ReadableFile(path: path)
            (size, actual) = try input.sizeAndDigest()
        } catch {
            throw CacheError(.invalidBundle, "the object was refused", digest: object, cause: error)
        }
        guard size == expected else {
            throw CacheError(
                .invalidBundle, "the object was refused", digest: object,
                cause: FormatError(.sizeMismatch, "has \(size) bytes, the manifest says \(expected)", entry: entry))
        }
        guard actual == object else {
            throw CacheError(
                .invalidBundle, "the object was refused", digest: object,
                cause: FormatError(.digestMismatch, "hashes to \(actual), not \(object)", entry: entry))
        }
    }

    /// Copies a file into staging while hashing it; it must have the object's size and digest.
    private func copyVerified(
        _ source: String, as object: Digest, size expected: Int64, entry: String, into staging: StagingArea
    ) throws(CacheError) -> String {
        func refused(_ error: FormatError) -> CacheError {
            if error.code == .noSpace { return CacheError(.diskFull, "no space left to install the bundle", digest: object, cause: error) }
            return CacheError(.invalidBundle, "the object was refused", digest: object, cause: error)
        }
        let input: ReadableFile
        do { input = try ReadableFile(path: source) } catch { throw refused(error) }
        let target = try staging.createFile()
        defer { close(target.descriptor) }
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        var size: Int64 = 0
        do throws(FormatError) {
            while true {
                let count = try input.read(into: buffer)
                if count == 0 { break }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                hasher.update(chunk)
                try Self.writeAll(chunk, to: target.descriptor, path: target.path)
                size += Int64(count)
            }
        } catch {
            throw refused(error)
        }
        let actual = hasher.finalize()
        guard size == expected else {
            throw refused(FormatError(.sizeMismatch, "has \(size) bytes, the manifest says \(expected)", entry: entry))
        }
        guard actual == object else {
            throw refused(FormatError(.digestMismatch, "hashes to \(actual), not \(object)", entry: entry))
        }
        return target.path
    }
}
