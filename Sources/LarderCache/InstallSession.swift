import LarderFormat
import LarderSystem

/// One install's hold on the cache, from before its first staged object to its one commit:
/// the sweep lock shared (eviction and sweeping wait, so an object found stored cannot vanish
/// before the bundle that reuses it commits) and its staging folders.
///
/// Objects reach the store only through ``commit(_:bytes:digest:embedded:staged:)``, which
/// accounts for them in the index transaction that adds the bundle. If that transaction does
/// not happen once an object moved, the first staging folder is kept as the sign that the
/// stored totals need a recount: the rule ``MaintenanceSession`` describes and repairs.
///
/// Released, the session removes its staging folders (unless one was kept), then drops the
/// lock.
final class InstallSession {
    private let cache: LarderCache
    /// One staging folder per writer thread.
    let stagings: [StagingArea]
    private var committed = false
    // Declared last: released after the staging folders are removed (deinit runs first).
    private let lock: FileLock

    /// Takes the sweep lock shared, waiting for maintenance to finish, then makes the staging
    /// folders.
    /// - Parameter stagingFolders: how many (one per writer thread).
    init(cache: LarderCache, stagingFolders: Int = 1) throws(CacheError) {
        self.cache = cache
        lock = try cache.layout.sweep.acquireShared()
        var stagings: [StagingArea] = []
        for _ in 0..<max(stagingFolders, 1) { stagings.append(try StagingArea(layout: cache.layout)) }
        self.stagings = stagings
    }

    deinit {
        for staging in stagings { staging.remove() }  // after a commit their files have moved out
    }

    private var layout: CacheLayout { cache.layout }

    /// Makes the staged objects durable, moves them into place and commits the bundle row: the
    /// bundle is visible only once every object it needs is in the store. Once per session.
    /// - Parameter staged: the staged file of each object this install wrote.
    func commit(_ verified: VerifiedManifest, embedded: Bool, staged: [Digest: String]) throws(CacheError) {
        let manifest = verified.manifest
        precondition(!committed, "an install session commits once")
        committed = true
        try StagingArea.synchronize(stagings)
        var placed = Set<Digest>()
        do throws(CacheError) {
            for (object, path) in staged.sorted(by: { $0.key < $1.key }) where try place(path, as: object) {
                placed.insert(object)
            }
            // Every object the bundle uses must be durable before its row commits, not only
            // those this install moved: one found in place (reused, or moved there meanwhile by
            // another process's install of the same bundle, hence EEXIST) may have been moved by
            // a process that has not made its move durable yet. On ext4 the index's fsync
            // commits the whole journal and hides that; on btrfs it logs only the index's own
            // file, and the power-loss explorer (Tools/powerloss.sh --fs btrfs) found an
            // acknowledged bundle whose objects were all gone after a crash.
            let shards = Set(manifest.files.map { String(layout.objectPath($0.digest).split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")) })
            try StagingArea.synchronizeMoves(from: stagings, into: shards)
            cache.moveSynchronizations.add(1, ordering: .relaxed)
            // Values only, not self: the closure runs with the index, which must not share a
            // region with this (non-Sendable) session.
            let (store, now, placed) = (layout, cache.configuration.now(), placed)
            try cache.index.withLock { (index) throws(CacheError) in
                try index.database.transaction { () throws(CacheError) in
                    for file in manifest.files where !File.exists(store.objectPath(file.digest)) {
                        throw CacheError(.storage, "object vanished before the bundle committed; install again", digest: file.digest)
                    }
                    try index.insertBundle(verified, embedded: embedded, now: now, placed: placed)
                }
            }
        } catch {
            if !placed.isEmpty { stagings[0].keepForRecovery() }
            throw error
        }
        let newFonts = manifest.files.filter { $0.role == .font }
        if !newFonts.isEmpty {
            cache.fonts.withLock { for font in newFonts { $0?[font.digest] = FontRecord(mediaType: font.mediaType, size: font.size) } }
        }
    }

    /// Moves a staged file to its object path without replacing anything
    /// (``Durability/renameNoReplace(_:_:)``); an object that is already there stays, and the
    /// staged copy goes with the staging folder.
    /// - Returns: whether this moved the file (false: the object was there).
    private func place(_ staged: String, as object: Digest) throws(CacheError) -> Bool {
        let destination = layout.objectPath(object)
        do { try Durability.current.renameNoReplace(staged, destination) } catch {
            guard error == .exists else { throw CacheError(.storage, "cannot move an object into place: \(error)", path: destination) }
            return false
        }
        return true
    }
}
