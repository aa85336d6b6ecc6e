import LarderFormat

/// Which bundles eviction, scope changes and logout remove, chosen inside the index
/// transaction that deletes them (``MaintenanceSession/removeBundles(_:)``).
///
/// No removal deletes a bundle a live process leases (see `CacheIndex+Leases.swift`), or one
/// using an object a fetch holds (`CacheIndex+Holds.swift`): one that was asked for (a scope drops it, a logout, ``LarderCache/clearAll()``) waits, recorded in
/// the index, and every removal first completes those whose leases have ended.
extension LarderCache {
    /// Which bundles ``MaintenanceSession/removeBundles(_:)`` deletes.
    enum Removal {
        /// Those of `dropped` that no scope, pin or embedding keeps.
        case unscoped([Digest])
        /// Every bundle but the embedded default.
        case allButEmbedded
        /// Every bundle (a purge): a leased one loses its scopes, pin and embedding too.
        case everything
        /// Least recently used bundles, never pinned, leased or embedded ones, until the
        /// objects the others use take at most `bytes`.
        case leastRecentlyUsed(downTo: Int64)
        /// Only the removals that waited for leases that have ended since.
        case released
    }

    /// The bundles a removal picks, and the stored bytes before and after it.
    struct Choice {
        /// Deleted now: the bundles picked that nobody leases, and the removals that waited
        /// for leases that have ended.
        var bundles: [Digest]
        /// Picked, but leased by a live process: kept until the last lease ends.
        var deferred: [Digest] = []
        var bytesBefore: Int64 = 0
        var bytesAfter: Int64 = 0
    }

    /// Picks the bundles of `removal`. Call inside the removal's transaction.
    func choose(_ removal: Removal, in index: CacheIndex) throws(CacheError) -> Choice {
        let leased = try leasedBundles(index)
        let released = try index.unscoped(try index.deferredRemovals()).filter { !leased.contains($0) }
        func split(_ picked: [Digest]) -> Choice {
            let now = picked.filter { !leased.contains($0) && !released.contains($0) }
            return Choice(bundles: released + now, deferred: picked.filter { leased.contains($0) })
        }
        switch removal {
        case .released: return Choice(bundles: released)
        case .unscoped(let dropped): return split(try index.unscoped(dropped))
        case .allButEmbedded: return split(try index.nonEmbeddedBundles())
        case .everything: return split(try index.bundles().map(\.digest))
        case .leastRecentlyUsed(let bytes):
            var candidates = try index.bundles().filter {
                !$0.pinned && !$0.embedded && !leased.contains($0.digest) && !released.contains($0.digest)
            }
            candidates.sort { ($0.lastUsed, $0.digest) < ($1.lastUsed, $1.digest) }
            var usage = try index.usage().bytes
            var choice = Choice(bundles: [], bytesBefore: usage, bytesAfter: usage)
            guard usage > bytes || !released.isEmpty else { return choice }
            // Bytes freed by each removal: the objects no remaining bundle uses.
            let references = try index.objectReferences()
            var users: [Digest: Int] = [:]
            for objects in references.values { for (object, _) in objects { users[object, default: 0] += 1 } }
            func take(_ bundle: Digest) {
                choice.bundles.append(bundle)
                for (object, size) in references[bundle] ?? [] {
                    users[object, default: 1] -= 1
                    if users[object] == 0 { usage -= size }
                }
            }
            for bundle in released { take(bundle) }
            var evicted: Int64 = 0
            for bundle in candidates where usage > bytes {
                take(bundle.digest)
                evicted += 1
            }
            choice.bytesAfter = usage
            if evicted > 0 { try index.increment("evictions", by: evicted) }
            return choice
        }
    }

    /// Bundles under a lease in this process or in any live process sharing the cache, and
    /// bundles using an object a live fetch holds (``LarderCache/holdObjects(of:)``): no removal
    /// takes them now.
    private func leasedBundles(_ index: CacheIndex) throws(CacheError) -> Set<Digest> {
        Set(leases.withLock { Array($0.keys) }).union(try index.leasedByLiveProcesses()).union(try index.bundlesUsingHeldObjects())
    }

    /// Completes the removals that waited for leases that have ended: at once when no install
    /// or maintenance holds the sweep lock and no other process is writing the index (the
    /// caller, ending a lease, may be a thread that must not wait), otherwise on
    /// ``deferredRemovals`` once they are done.
    func completeDeferredRemovals() {
        do {
            // nil: the sweep lock is held; .some(nil): another process is writing the index.
            let attempt = try maintainingIfFree { (session) throws(CacheError) in try session.removeBundlesWithoutWaiting(.released) }
            if case .some(.some) = attempt { return }
        } catch {
            // Tried again below, waiting.
        }
        deferredRemovals.async { [self] in
            do { _ = try maintaining { (session) throws(CacheError) in try session.removeBundles(.released) } } catch {
                // The removal stays recorded in the index: the next removal or sweep completes it.
            }
        }
    }
}
