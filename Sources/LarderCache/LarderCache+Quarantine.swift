import LarderFormat
import LarderSystem

/// What happens to an object file that is not what the index says: a digest mismatch, a
/// missing file, or anything planted in its place (a symbolic link, folder, FIFO, device,
/// socket, a file of another size). Each is quarantined the same way: moved to `quarantine/`,
/// its bundles marked incomplete, and the caller told which digest and bundles to refetch.
/// A read-only cache reports the same error and moves nothing.
extension LarderCache {
    /// Opens an object for a caller about to read it.
    /// - Throws: what ``failure(reading:_:)`` makes of a problem.
    func openObject(_ object: Digest, size: Int64) throws(CacheError) -> ObjectFile {
        do throws(ObjectFileProblem) {
            return try ObjectFile(opening: layout.objectPath(object), size: size)
        } catch {
            throw try failure(reading: object, error)
        }
    }

    /// The error a reader of `object` gets for a problem with its file: a missing file of an
    /// object no bundle stores any more is ``CacheError/Code/bundleNotFound`` (evicted
    /// meanwhile by another process); a missing or damaged file is quarantined
    /// (``CacheError/Code/corruptObject``); a refusal of the system is
    /// ``CacheError/Code/storage``.
    func failure(reading object: Digest, _ problem: ObjectFileProblem) throws(CacheError) -> CacheError {
        let path = layout.objectPath(object)
        switch problem {
        case .missing:
            diskMisses.add(1, ordering: .relaxed)
            guard try index.withLock({ (index) throws(CacheError) in try index.isStored(object) }) else {
                return CacheError(.bundleNotFound, "the object was evicted; fetch its bundle again", digest: object)
            }
            return try quarantine(object, reason: "its file is missing")
        case .system(let message, let error):
            return CacheError(.storage, "\(message): \(error)", digest: object, path: path)
        case .notAFile, .wrongSize, .shrank, .unreadable:
            return try quarantine(object, reason: problem.damage ?? "it is damaged")
        }
    }

    /// Moves a corrupt object out of the store, marks its bundles incomplete, and returns the
    /// error to throw. In a read-only cache nothing moves: the error names the bundles all the
    /// same.
    func quarantine(_ object: Digest, reason: String) throws(CacheError) -> CacheError {
        let path = layout.objectPath(object)
        memory.remove(object)
        verified.withLock { _ = $0.remove(object) }
        guard configuration.mode == .readWrite else {
            let bundles = try index.withLock { (index) throws(CacheError) in try index.bundles(using: object) }
            return CacheError(
                .corruptObject,
                "a stored object failed verification (\(reason)); the cache is read-only, so it stays in place: "
                    + "run 'larder cache verify --repair' where the cache is writable, then refetch", digest: object, bundles: bundles,
                path: path)
        }
        try moveToQuarantine(object)
        fonts.withLock { _ = $0?.removeValue(forKey: object) }
        let bundles = try index.withLock { (index) throws(CacheError) in
            try index.database.transaction { () throws(CacheError) in
                let bundles = try index.quarantine(object)
                try index.increment("integrity_failures")
                return bundles
            }
        }
        return CacheError(
            .corruptObject, "a stored object failed verification (\(reason)); it was quarantined: refetch it", digest: object,
            bundles: bundles, path: path)
    }

    /// Renames whatever is at the object's path to `quarantine/<hex>`, replacing an older copy
    /// there; when the two cannot replace one another (a folder and a file, or a folder that
    /// is not empty) to `quarantine/<hex>.<n>`, the first free one up to 99. Both folders are
    /// opened without following a link (`renameat(2)` between them), so the object never moves
    /// out of the cache.
    private func moveToQuarantine(_ object: Digest) throws(CacheError) {
        let path = layout.objectPath(object)
        let hex = object.hex
        let name = String(hex.dropFirst(2))
        let quarantine = try layout.openExisting(.quarantine)
        guard let objects = try layout.open(.objects), let shard = try CacheLayout.openShard(String(hex.prefix(2)), in: objects) else {
            return  // nothing there: another process moved it first
        }
        var failure: Errno
        do { return try shard.move(name, to: quarantine, as: hex) } catch { failure = error }
        if [.isFolder, .notAFolder, .folderNotEmpty, .exists].contains(failure) {
            for attempt in 1...99 {
                do { return try shard.moveWithoutReplacing(name, to: quarantine, as: hex + ".\(attempt)") } catch { failure = error }
                guard failure == .exists else { break }
            }
        }
        // Nothing (left) at the object's path: another process moved it first.
        if failure == .notFound || failure == .notAFolder { return }
        throw CacheError.fileSystem("cannot quarantine a corrupt object", failure, path: path, digest: object)
    }

    /// The objects among `sizes` (digest and recorded size) whose files in the store an install
    /// may reuse instead of writing them: regular files of the recorded size, and, the first
    /// time this process meets them, of the right digest. Anything else found at an object's
    /// path is quarantined (in a read-write cache), so the install writes the object anew.
    func reusableObjects(_ sizes: [Digest: Int64]) throws(CacheError) -> Set<Digest> {
        var reusable = Set<Digest>()
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        for (object, size) in sizes {
            let damage: String
            do throws(ObjectFileProblem) {
                let file = try ObjectFile(opening: layout.objectPath(object), size: size)
                if verified.withLock({ $0.contains(object) }) {
                    reusable.insert(object)
                    continue
                }
                hasher.reset()
                try file.hash(into: hasher, buffer: buffer)
                if hasher.finalize() == object {
                    verified.withLock { _ = $0.insert(object) }
                    reusable.insert(object)
                    continue
                }
                damage = "its bytes do not match its digest"
            } catch {
                guard let found = error.damage else {
                    if case .system(let message, let errno) = error {
                        throw CacheError(.storage, "\(message): \(errno)", digest: object, path: layout.objectPath(object))
                    }
                    continue  // missing: to be written
                }
                damage = found
            }
            // The integrity counter reports it; the install writes the object anew.
            if configuration.mode == .readWrite { _ = try quarantine(object, reason: damage + ", found by an install") }
        }
        return reusable
    }
}
