import LarderFormat

/// Which bundles eviction, scope changes and logout remove, chosen inside the index
/// transaction that deletes them (``MaintenanceSession/removeBundles(_:)``).
extension LarderCache {
    /// Which bundles ``MaintenanceSession/removeBundles(_:)`` deletes.
    enum Removal {
        /// Those of `dropped` that no scope, pin or embedding keeps.
        case unscoped([Digest])
        /// Every bundle but the embedded default.
        case allButEmbedded
        /// Least recently used bundles, never pinned, leased or embedded ones, until the
        /// objects the others use take at most `bytes`.
        case leastRecentlyUsed(downTo: Int64)
    }

    /// The bundles a removal picks, and the stored bytes before and after it.
    struct Choice {
        var bundles: [Digest]
        var bytesBefore: Int64 = 0
        var bytesAfter: Int64 = 0
    }

    /// Picks the bundles of `removal`. Call inside the removal's transaction.
    func choose(_ removal: Removal, in index: CacheIndex) throws(CacheError) -> Choice {
        switch removal {
        case .unscoped(let dropped): return Choice(bundles: try index.unscoped(dropped))
        case .allButEmbedded: return Choice(bundles: try index.nonEmbeddedBundles())
        case .leastRecentlyUsed(let bytes):
            let leased = try leasedBundles(index)
            var candidates = try index.bundles().filter { !$0.pinned && !$0.embedded && !leased.contains($0.digest) }
            candidates.sort { ($0.lastUsed, $0.digest) < ($1.lastUsed, $1.digest) }
            var usage = try index.usage().bytes
            var choice = Choice(bundles: [], bytesBefore: usage, bytesAfter: usage)
            guard usage > bytes else { return choice }
            // Bytes freed by each eviction: the objects no remaining bundle uses.
            let references = try index.objectReferences()
            var users: [Digest: Int] = [:]
            for objects in references.values { for (object, _) in objects { users[object, default: 0] += 1 } }
            for bundle in candidates where usage > bytes {
                choice.bundles.append(bundle.digest)
                for (object, size) in references[bundle.digest] ?? [] {
                    users[object, default: 1] -= 1
                    if users[object] == 0 { usage -= size }
                }
            }
            choice.bytesAfter = usage
            if !choice.bundles.isEmpty { try index.increment("evictions", by: Int64(choice.bundles.count)) }
            return choice
        }
    }

    /// Bundles under a lease in this process or in any live process sharing the cache.
    private func leasedBundles(_ index: CacheIndex) throws(CacheError) -> Set<Digest> {
        var leased = Set(leases.withLock { Array($0.keys) })
        for (bundle, pid) in try index.leases() where Self.processIsAlive(pid) { leased.insert(bundle) }
        return leased
    }
}
