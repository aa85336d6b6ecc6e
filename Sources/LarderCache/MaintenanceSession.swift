import LarderFormat
import LarderSystem

/// The cache held with its sweep lock exclusive: no install is between placing objects and
/// committing, so this is where the stored totals are repaired and where objects are forgotten.
///
/// The rule it keeps, with ``InstallSession``: **the stored totals are right unless `staging/`
/// holds something.** What can leave them wrong always leaves something there first:
/// - an install's staging folder, kept when objects were moved into the store without the
///   commit that accounts for them (``InstallSession/commit(_:bytes:digest:embedded:staged:)``),
///   or left by an install that died;
/// - the eviction marker (`staging/evicting`), made durable before an index transaction that
///   forgets objects and removed once their files are gone (``removeBundles(_:)``): a process
///   dying in between leaves files the index no longer counts, which another install may reuse
///   uncounted.
///
/// So ``recoverLeftovers()``, run before any removal and at open when no install runs,
/// recounts the totals from the index, removes the files no bundle uses (so none is reused
/// uncounted later), and only then empties `staging/`.
///
/// A session is made only by ``LarderCache/maintaining(_:)`` and
/// ``LarderCache/maintainingIfFree(_:)``, for the closure they run: do not keep it beyond
/// that, the lock ends with the closure. (It is not `~Copyable` and borrowed, which would say
/// so to the compiler: Swift 6.3's optimizer crashes inlining that.)
struct MaintenanceSession {
    let cache: LarderCache

    fileprivate init(cache: LarderCache) { self.cache = cache }

    private var layout: CacheLayout { cache.layout }

    /// Recounts, removes stray files and then what is in `staging/`, if anything is there.
    func recoverLeftovers() throws(CacheError) {
        guard try StagingArea.hasLeftovers(layout: layout) else { return }
        _ = try cleanUp(dryRun: false)
    }

    /// In the order recovery needs: recounts the stored totals, removes the files no bundle
    /// uses, then everything in `staging/`. A dry run only lists the files.
    /// - Returns: the files no bundle uses and their total size.
    func cleanUp(dryRun: Bool) throws(CacheError) -> (paths: [String], bytes: Int64) {
        if !dryRun { try recount() }
        let stray = try removeStrayFiles(dryRun: dryRun)
        if !dryRun { try StagingArea.removeAll(layout: layout) }
        return stray
    }

    /// Sets the stored totals from the index.
    func recount() throws(CacheError) {
        try cache.index.withLock { (index) throws(CacheError) in
            try index.database.transaction { () throws(CacheError) in try index.recount() }
        }
    }

    /// Removes (unless `dryRun`) every file under `objects/` that no bundle uses and no fetch
    /// holds, through the opened shards (a link there goes, not what it points at; a folder
    /// with what is in it).
    /// - Returns: their paths and their total size in bytes.
    func removeStrayFiles(dryRun: Bool) throws(CacheError) -> (paths: [String], bytes: Int64) {
        // Objects a fetch holds stay too: it decided not to download them.
        let used = try cache.index.withLock { (index) throws(CacheError) in try index.usedObjectNames().union(try index.heldObjectNames()) }
        var stray: [String] = []
        var bytes: Int64 = 0
        try layout.forEachObjectFile { (shard, entry, name) throws(CacheError) in
            guard !used.contains(name) else { return }
            let path = shard.path(of: entry.name)
            guard let status = try? shard.status(of: entry.name) else { return }  // gone meanwhile
            stray.append(path)
            bytes += status.size
            guard !dryRun else { return }
            do throws(Folder.RemovalError) { try shard.removeEntry(entry) } catch { throw CacheError.removal(error, "cannot remove a stray file") }
        }
        return (stray, bytes)
    }

    /// Recovers, then deletes the bundles `removal` picks (in one index transaction) and
    /// unlinks the objects nothing uses any more, the eviction marker covering the time between
    /// the commit and the last unlink. Picked bundles a live process leases are recorded in the
    /// same transaction, to go when their last lease ends.
    /// - Returns: what was picked; no bundles when nothing was removed.
    func removeBundles(_ removal: LarderCache.Removal) throws(CacheError) -> LarderCache.Choice {
        try removeBundles(removal, waiting: true)!  // waiting: never nil
    }

    /// ``removeBundles(_:)`` for a thread that must not wait: nil, with nothing changed, when
    /// another process holds the index's write lock.
    func removeBundlesWithoutWaiting(_ removal: LarderCache.Removal) throws(CacheError) -> LarderCache.Choice? {
        try removeBundles(removal, waiting: false)
    }

    private func removeBundles(_ removal: LarderCache.Removal, waiting: Bool) throws(CacheError) -> LarderCache.Choice? {
        try recoverLeftovers()
        var marked = false
        let picked: (choice: LarderCache.Choice, orphans: [Digest])?
        do throws(CacheError) {
            picked = try cache.index.withLock { (index) throws(CacheError) -> (LarderCache.Choice, [Digest])? in
                guard !waiting else {
                    return try index.database.transaction { () throws(CacheError) in try pickAndDelete(removal, in: index, marked: &marked) }
                }
                return try index.database.withoutWaiting { () throws(CacheError) in
                    try index.database.transaction { () throws(CacheError) in try pickAndDelete(removal, in: index, marked: &marked) }
                }
            }
        } catch {
            if marked { try removeEvictionMarker() }  // rolled back: nothing to recover
            throw error
        }
        guard let (choice, orphans) = picked.map({ ($0.choice, $0.orphans) }) else {
            if marked { try removeEvictionMarker() }  // busy at the commit: rolled back
            return nil
        }
        guard marked else {
            return LarderCache.Choice(bundles: [], deferred: choice.deferred, bytesBefore: choice.bytesBefore, bytesAfter: choice.bytesAfter)
        }
        for object in orphans { cache.memory.remove(object) }
        try layout.removeObjects(orphans)
        try removeEvictionMarker()
        cache.refreshFonts()
        return choice
    }

    /// Inside the removal's transaction: picks, records the deferred bundles, and deletes the
    /// rest (after making the eviction marker, `marked`).
    /// - Returns: the choice and the objects to unlink once this commits.
    private func pickAndDelete(
        _ removal: LarderCache.Removal, in index: CacheIndex, marked: inout Bool
    ) throws(CacheError) -> (LarderCache.Choice, [Digest]) {
        let choice = try cache.choose(removal, in: index)
        if !choice.deferred.isEmpty {
            try index.deferRemoval(choice.deferred)
            // Logout clears everything but the embedded default, scopes and pins too; a purge
            // the embedding as well.
            switch removal {
            case .allButEmbedded: try index.dropKeepers(of: choice.deferred, embedding: false)
            case .everything: try index.dropKeepers(of: choice.deferred, embedding: true)
            default: break
            }
        }
        var orphans: [Digest] = []
        if !choice.bundles.isEmpty {
            try createEvictionMarker()
            marked = true
            orphans = try index.deleteBundles(choice.bundles)
        }
        if case .everything = removal {
            // A purge leaves no scope, so no scope's name.
            try index.database.execute("DELETE FROM scope_labels WHERE scope NOT IN (SELECT scope FROM scopes)")
        }
        return (choice, orphans)
    }

    private static let evictionMarker = "evicting"

    /// Creates the eviction marker, an empty file in `staging/`, and makes it durable (the index
    /// change that follows may be). If the process dies before ``removeEvictionMarker()``, it
    /// is a leftover.
    private func createEvictionMarker() throws(CacheError) {
        let staging = try layout.openExisting(.staging)
        let path = staging.path(of: Self.evictionMarker)
        do { try staging.openFile(Self.evictionMarker, [.writeOnly, .create, .noFollow, .nonBlocking]).close() } catch {
            throw CacheError.fileSystem("cannot create a marker", error, path: path)
        }
        guard !Durability.skipsSynchronization else { return }
        do { try staging.synchronize() } catch {
            throw CacheError(.storage, "cannot make a marker durable: \(error)", path: path)
        }
    }

    private func removeEvictionMarker() throws(CacheError) {
        let staging = try layout.openExisting(.staging)
        do { try staging.removeEntry(Self.evictionMarker) } catch {
            throw CacheError.removal(error, "cannot remove a marker")
        }
    }
}

extension LarderCache {
    /// Runs `body` in a maintenance session, waiting for installs (and other maintenance) to
    /// finish first.
    /// - Throws: ``CacheError/Code/storage`` when the sweep lock cannot be taken, or what
    ///   `body` throws.
    func maintaining<Result>(_ body: (MaintenanceSession) throws(CacheError) -> Result) throws(CacheError) -> Result {
        try layout.sweep.withExclusive { () throws(CacheError) in try body(MaintenanceSession(cache: self)) }
    }

    /// Runs `body` in a maintenance session if no install or maintenance holds the sweep lock.
    /// - Returns: nil, without running `body`, when one does.
    func maintainingIfFree<Result>(_ body: (MaintenanceSession) throws(CacheError) -> Result) throws(CacheError) -> Result? {
        try layout.sweep.withExclusiveIfFree { () throws(CacheError) in try body(MaintenanceSession(cache: self)) }
    }

    /// At open: recovers if no install is running anywhere; otherwise a later open, eviction
    /// or sweep does.
    func recoverIfIdle() throws(CacheError) {
        _ = try maintainingIfFree { (session) throws(CacheError) in try session.recoverLeftovers() }
    }
}
