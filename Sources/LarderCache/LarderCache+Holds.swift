import LarderFormat
import LarderSystem

/// A fetch's hold on the objects of a manifest the cache already has, from the decision that
/// they need not be downloaded to the install that uses them: meanwhile no eviction, removal
/// or sweep, in any process sharing the cache, takes them (see `CacheIndex+Holds.swift`).
/// Release it once the install returned; dropping it releases it too.
public final class ObjectHold: Sendable {
    /// The manifest's objects the cache does not have: what the fetch must download.
    public let missing: Set<Digest>
    private let cache: LarderCache
    private let token: Int64
    private let released = Locked(false)

    init(missing: Set<Digest>, cache: LarderCache, token: Int64) {
        self.missing = missing
        self.cache = cache
        self.token = token
    }

    deinit { release() }

    /// Ends the hold (an index write; it may wait for another process's write): the objects may
    /// be evicted again, and removals that waited for it go on (here when nothing holds the
    /// cache, otherwise on a background queue as soon as nothing does).
    public func release() {
        guard released.withLock({ (released: inout Bool) -> Bool in
            defer { released = true }
            return !released
        }) else { return }
        cache.endHold(token: token)
    }
}

extension LarderCache {
    /// Holds the objects of `manifest` that the cache has until the returned hold is released,
    /// and says which it lacks: what a fetch calls before downloading the rest, so that an
    /// eviction in another process (of a bundle sharing a font, say) cannot take an object
    /// between this decision and the install that reuses it.
    ///
    /// The decision is made holding the sweep lock shared, as an install does: no eviction or
    /// sweep is then between deleting an object's rows and unlinking its file, so what is found
    /// in place (a regular file of the recorded size, of the right digest the first time this
    /// process looks; anything else is quarantined) is in the store, and the hold, recorded
    /// first, keeps it there.
    /// - Throws: ``CacheError``; ``CacheError/Code/readOnly`` in a read-only cache.
    public func holdObjects(of manifest: Manifest) throws(CacheError) -> ObjectHold {
        try requireWritable("hold objects for a fetch (a hold is recorded in the index)")
        var sizes: [Digest: Int64] = [:]
        for file in manifest.files { sizes[file.digest] = file.size }
        let token = nextLeaseToken.add(1, ordering: .relaxed).newValue
        let lock = try layout.sweep.acquireShared()
        defer { withExtendedLifetime(lock) {} }
        try index.withLock { (index) throws(CacheError) in
            try index.database.hintTransaction { () throws(CacheError) in
                try index.addHolds(sizes.keys.sorted(), holder: .current, token: token)
            }
        }
        let missing: Set<Digest>
        do { missing = Set(sizes.keys).subtracting(try reusableObjects(sizes)) } catch {
            endHold(token: token)
            throw error
        }
        return ObjectHold(missing: missing, cache: self, token: token)
    }

    /// Ends a hold (``ObjectHold/release()``); a removal that waited for it goes on.
    func endHold(token: Int64) {
        let awaited: Bool
        do {
            awaited = try index.withLock { (index) throws(CacheError) -> Bool in
                try index.database.hintTransaction { () throws(CacheError) in try index.removeHolds(holder: .current, token: token) }
                return try index.hasDeferredRemovals()
            }
        } catch {
            // The rows stay until this process is gone (a removal then ignores them, and an open
            // or sweep deletes them); meanwhile eviction skips the bundles using those objects.
            return
        }
        if awaited { completeDeferredRemovals() }
    }
}
