import LarderFormat

extension LarderCache {
    /// The objects of a manifest that the cache does not hold: what a fetch must download.
    ///
    /// An object counts as held once its file checks out: a regular file of the size the
    /// manifest gives, and of the right digest the first time this process looks. Anything
    /// else in its place is quarantined (in a read-write cache), so it is fetched again.
    public func missingObjects(of manifest: Manifest) throws(CacheError) -> Set<Digest> {
        var sizes: [Digest: Int64] = [:]
        for file in manifest.files { sizes[file.digest] = file.size }
        return Set(sizes.keys).subtracting(try reusableObjects(sizes))
    }

    /// Installs a bundle from its checked manifest and files holding the objects the cache lacks
    /// (downloaded one by one). Each file is hashed as it is copied in and must match its
    /// digest; objects already stored are reused. Nothing is visible until the bundle commits.
    /// - Parameters:
    ///   - verified: the manifest, checked against the digest it was fetched for
    ///     (`VerifiedManifest(decoding:expecting:)` in LarderFormat).
    ///   - objectFiles: a file for every object ``missingObjects(of:)`` names (more is fine).
    ///   - adopting: move the files into the cache instead of copying them (they must be on the
    ///     cache's file system, as its `downloads/` are; others are copied); each is hashed
    ///     once moved, where no one else writes. The caller's files are gone afterwards.
    /// - Throws: ``CacheError/Code/invalidBundle`` naming the object that is missing or does
    ///   not match.
    public func install(
        _ verified: VerifiedManifest, objectFiles: [Digest: String], adopting: Bool = false
    ) throws(CacheError) -> InstallResult {
        let (manifest, digest) = (verified.manifest, verified.digest)
        try requireWritable("install a bundle")
        return try coalesced(verified, embedded: false) { () throws(CacheError) in
            let session = try InstallSession(cache: self)
            let staging = session.stagings[0]
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
            try session.commit(verified, embedded: false, staged: staged)
            return InstallResult(
                bundle: digest, name: manifest.name, alreadyPresent: false, objectsWritten: staged.count,
                bytesWritten: bytesWritten, evicted: [])
        }
    }

    /// Hashes a file moved into staging; it must be a regular file of the object's size and
    /// digest (checked before a byte is read, as objects in the store are).
    private func checkStaged(_ path: String, as object: Digest, size: Int64, entry: String) throws(CacheError) {
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        do throws(ObjectFileProblem) {
            try ObjectFile(opening: path, size: size).hash(into: hasher, buffer: buffer)
        } catch {
            throw CacheError(.invalidBundle, "the object was refused", digest: object, cause: Self.refusal(error, entry: entry))
        }
        let actual = hasher.finalize()
        guard actual == object else {
            throw CacheError(
                .invalidBundle, "the object was refused", digest: object,
                cause: FormatError(.digestMismatch, "hashes to \(actual), not \(object)", entry: entry))
        }
    }

    /// Copies a file into staging while hashing it; it must be a regular file of the object's
    /// size (checked before a byte is read) and digest.
    private func copyVerified(
        _ source: String, as object: Digest, size: Int64, entry: String, into staging: StagingArea
    ) throws(CacheError) -> String {
        func refused(_ error: FormatError) -> CacheError {
            if error.code == .noSpace { return CacheError(.diskFull, "no space left to install the bundle", digest: object, cause: error) }
            return CacheError(.invalidBundle, "the object was refused", digest: object, cause: error)
        }
        let input: ObjectFile
        do throws(ObjectFileProblem) { input = try ObjectFile(opening: source, size: size) } catch {
            throw refused(Self.refusal(error, entry: entry))
        }
        let target = try staging.createFile()
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while offset < size {
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), size - offset))])
            do throws(ObjectFileProblem) { try input.read(into: chunk, at: offset) } catch {
                throw refused(Self.refusal(error, entry: entry))
            }
            hasher.update(UnsafeRawBufferPointer(chunk))
            do throws(FormatError) { try target.write(UnsafeRawBufferPointer(chunk)) } catch {
                throw refused(error)
            }
            offset += Int64(chunk.count)
        }
        let actual = hasher.finalize()
        guard actual == object else {
            throw refused(FormatError(.digestMismatch, "hashes to \(actual), not \(object)", entry: entry))
        }
        return target.path
    }

    /// The format error for a file given as an object that is not one.
    private static func refusal(_ problem: ObjectFileProblem, entry: String) -> FormatError {
        switch problem {
        case .missing: FormatError(.missingEntry, "the file given for it is missing", entry: entry)
        case .notAFile(let kind): FormatError(.unsupportedEntryType, "the file given for it is \(kind), not a file", entry: entry)
        case .wrongSize(let actual, let recorded): FormatError(.sizeMismatch, "has \(actual) bytes, the manifest says \(recorded)", entry: entry)
        case .shrank(let actual, let recorded): FormatError(.sizeMismatch, "shrank to \(actual) bytes while read, the manifest says \(recorded)", entry: entry)
        case .unreadable(let error), .system(_, let error): FormatError(.io, "cannot read the file given for it: \(error)", entry: entry)
        }
    }
}
