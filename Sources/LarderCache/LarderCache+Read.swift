import LarderFormat
import LarderSystem

/// What the cache knows of a stored font without reading it.
struct FontRecord: Sendable {
    var mediaType: String
    var size: Int64
}

/// A font resolved from a `larder-font:` URL.
public struct FontResource: Sendable {
    public var digest: Digest
    public var mediaType: String
    /// The verified bytes.
    public var bytes: [UInt8]
}

/// A read lease on a bundle being presented: while it is held, no removal deletes the bundle
/// (in any process sharing the cache; one that asks for it waits until the last lease ends),
/// eviction skips it, and memory pressure keeps what it has read.
public final class BundleLease: Sendable {
    public let bundle: Digest
    public let manifest: Manifest
    private let cache: LarderCache
    private let token: Int64
    private let state = Locked<(released: Bool, held: Set<Digest>)>((false, []))

    init(bundle: Digest, manifest: Manifest, cache: LarderCache, token: Int64) {
        self.bundle = bundle
        self.manifest = manifest
        self.cache = cache
        self.token = token
    }

    deinit { release() }

    /// A resource's verified bytes.
    /// - Throws: ``CacheError/Code/resourceNotFound``, or ``CacheError/Code/corruptObject``
    ///   naming the digest to refetch.
    public func data(at path: String) throws(CacheError) -> [UInt8] {
        let file = try entry(path)
        let bytes = try cache.verifiedBytes(file.digest, size: file.size)
        if state.withLock({ $0.held.insert(file.digest).inserted }) { cache.memory.hold(file.digest) }
        return bytes
    }

    /// A resource's file location, after its object was verified in this process.
    public func fileLocation(at path: String) throws(CacheError) -> String {
        let file = try entry(path)
        try cache.verifyOnce(file.digest, size: file.size)
        return cache.layout.objectPath(file.digest)
    }

    /// Ends the lease; the bundle may be evicted again, and when this was its last lease and a
    /// removal waits for it (its scope dropped it meanwhile), it is removed now: here when no
    /// install or maintenance holds the cache, otherwise on a background queue as soon as none
    /// does.
    public func release() {
        let held: Set<Digest>? = state.withLock { state in
            guard !state.released else { return nil }
            state.released = true
            return state.held
        }
        guard let held else { return }
        for digest in held { cache.memory.release(digest) }
        cache.endLease(bundle, token: token)
    }

    private func entry(_ path: String) throws(CacheError) -> Manifest.File {
        guard let file = manifest.file(at: path) else {
            throw CacheError(.resourceNotFound, "the bundle has no file '\(path)'", digest: bundle)
        }
        return file
    }
}

extension LarderCache {
    /// Leases a complete bundle for presentation and marks it used.
    /// - Throws: ``CacheError/Code/bundleNotFound`` or ``CacheError/Code/bundleIncomplete``;
    ///   ``CacheError/Code/readOnly`` in a read-only cache (a lease is a row in the index).
    public func lease(_ digest: Digest) throws(CacheError) -> BundleLease {
        guard let lease = try lease(digest, waiting: true) else {
            throw CacheError(.busy, "the index stayed locked by another process", digest: digest)
        }
        return lease
    }

    /// ``lease(_:)`` for a thread that must not wait (an actor's): nil, with nothing changed,
    /// when another process holds the index's write lock at this moment; then call
    /// ``lease(_:)`` where waiting is allowed.
    public func leaseWithoutWaiting(_ digest: Digest) throws(CacheError) -> BundleLease? {
        try lease(digest, waiting: false)
    }

    private func lease(_ digest: Digest, waiting: Bool) throws(CacheError) -> BundleLease? {
        try requireWritable("lease a bundle (a lease is recorded in the index)")
        let token = nextLeaseToken.add(1, ordering: .relaxed).newValue
        let manifest = try index.withLock { (index) throws(CacheError) -> Manifest? in
            guard let record = try index.bundle(digest) else {
                throw CacheError(.bundleNotFound, "no such bundle in the cache; fetch it", digest: digest)
            }
            guard record.complete else {
                throw CacheError(.bundleIncomplete, "the bundle lost an object to corruption; fetch it again", digest: digest)
            }
            var manifest = manifests.kept(digest)
            if manifest == nil { manifest = manifests.keep(try index.manifest(digest), for: digest) }
            guard let manifest else {
                throw CacheError(.bundleNotFound, "no such bundle in the cache; fetch it", digest: digest)
            }
            let now = configuration.now()
            func write(_ index: inout CacheIndex) throws(CacheError) {
                try index.database.hintTransaction { () throws(CacheError) in
                    // Asked again inside the write: another process's removal may have
                    // committed since the read above, and a lease must not outlive its bundle.
                    guard try index.touch(digest, now: now) else {
                        throw CacheError(.bundleNotFound, "the bundle was removed or damaged meanwhile; fetch it", digest: digest)
                    }
                    try index.addLease(digest, holder: .current, token: token)
                }
            }
            if waiting {
                try write(&index)
            } else if try index.database.withoutWaiting({ () throws(CacheError) in try write(&index) }) == nil {
                return nil
            }
            return manifest
        }
        guard let manifest else { return nil }
        leases.withLock { $0[digest, default: 0] += 1 }
        return BundleLease(bundle: digest, manifest: manifest, cache: self, token: token)
    }

    func endLease(_ digest: Digest, token: Int64) {
        let last = leases.withLock { leases in
            leases[digest, default: 1] -= 1
            guard leases[digest] == 0 else { return false }
            leases.removeValue(forKey: digest)
            return true
        }
        let awaited: Bool
        do {
            awaited = try index.withLock { (index) throws(CacheError) -> Bool in
                try index.removeLease(digest, holder: .current, token: token)
                guard last else { return false }
                return try index.isRemovalDeferred(digest)
            }
        } catch {
            // The row keeps the bundle until a removal or sweep sees this process is gone (an open
            // deletes the row).
            return
        }
        if awaited { completeDeferredRemovals() }
    }

    /// Resolves a font URL (parsed by `FontURL.init(parsing:)`, the one rule for the packer
    /// and every reader) to the stored font and its media type.
    /// - Throws: ``CacheError/Code/unknownFont`` when no bundle has that font, or
    ///   ``CacheError/Code/corruptObject``.
    public func resolveFont(_ font: FontURL) throws(CacheError) -> FontResource {
        var known = fonts.withLock { $0 }
        if known == nil {
            let loaded = try index.withLock { (index) throws(CacheError) in try index.fonts() }
            fonts.withLock { $0 = $0 ?? loaded }
            known = loaded
        }
        guard let record = known?[font.digest] else {
            throw CacheError(.unknownFont, "no bundle in the cache has this font", url: font.description, digest: font.digest)
        }
        return FontResource(digest: font.digest, mediaType: record.mediaType, bytes: try verifiedBytes(font.digest, size: record.size))
    }

    /// An object's bytes: from memory, or read from disk (checked against its recorded size
    /// before a byte is read) and verified (once per process).
    func verifiedBytes(_ object: Digest, size: Int64) throws(CacheError) -> [UInt8] {
        if let bytes = memory.value(for: object) { return bytes }
        let bytes = try readObject(object, size: size)
        if !verified.withLock({ $0.contains(object) }) {
            guard SHA256Hasher.hash(bytes) == object else { throw try quarantine(object, reason: "its bytes do not match its digest") }
            verified.withLock { _ = $0.insert(object) }
        }
        memory.insert(bytes, for: object, cost: bytes.count)
        return bytes
    }

    /// Verifies an object once per process without keeping its bytes.
    func verifyOnce(_ object: Digest, size: Int64) throws(CacheError) {
        guard !verified.withLock({ $0.contains(object) }) else { return }
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(min(max(size, 1), 1 << 20)), alignment: 64)
        defer { buffer.deallocate() }
        let file = try openObject(object, size: size)
        do throws(ObjectFileProblem) { try file.hash(into: hasher, buffer: buffer) } catch {
            throw try failure(reading: object, error)
        }
        guard hasher.finalize() == object else { throw try quarantine(object, reason: "its bytes do not match its digest") }
        verified.withLock { _ = $0.insert(object) }
    }

    /// Reads an object's file: a regular file of exactly `size` bytes, read up to that size.
    private func readObject(_ object: Digest, size: Int64) throws(CacheError) -> [UInt8] {
        let file = try openObject(object, size: size)
        do throws(ObjectFileProblem) {
            let bytes = try file.readAll()
            diskHits.add(1, ordering: .relaxed)
            return bytes
        } catch {
            throw try failure(reading: object, error)
        }
    }
}
