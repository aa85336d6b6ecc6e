import LarderFormat
import LarderSystem

/// The process holding a lease: its id and its start mark (``ProcessID/startMark(of:)``), so
/// that the lease of a process that ended is never taken for one of a later process that got
/// the same id (ids are reused, and start again from 1 after a reboot).
struct LeaseHolder: Hashable, Sendable {
    var pid: Int32
    /// "" when unknown: a row written before marks were recorded, or where they cannot be read.
    var start: String

    /// This process.
    static var current: LeaseHolder { LeaseHolder(pid: ProcessID.current, start: ProcessID.currentStart) }

    /// Whether the holder still runs (a zombie does not).
    var isAlive: Bool { self == .current || ProcessID.isAlive(pid, start: start) }
}

/// Leases, and the removals that wait for them.
///
/// A lease is a row (bundle, holder, token), written when it is taken and deleted when it ends;
/// a process that dies leaves its rows, which every reader tells apart by their holder. A
/// removal that picks a bundle some live process leases (a scope that drops it, a logout,
/// ``LarderCache/clearAll()``) deletes nothing of it: it records the bundle in
/// `deferred_removals`, in the same transaction, and the bundle goes when its last lease ends
/// (``LarderCache/endLease(_:token:)``), or at the next removal or sweep once its holders are
/// gone, if no scope, pin or embedding keeps it by then. Eviction only skips a leased bundle.
extension CacheIndex {
    // MARK: Leases

    func addLease(_ bundle: Digest, holder: LeaseHolder, token: Int64) throws(CacheError) {
        try database.prepare("INSERT OR IGNORE INTO leases(bundle, pid, token, start) VALUES(?, ?, ?, ?)")
            .bind(.text(bundle.description), .int(Int64(holder.pid)), .int(token), .text(holder.start)).run()
    }

    func removeLease(_ bundle: Digest, holder: LeaseHolder, token: Int64) throws(CacheError) {
        try database.prepare("DELETE FROM leases WHERE bundle = ? AND pid = ? AND token = ?")
            .bind(.text(bundle.description), .int(Int64(holder.pid)), .int(token)).run()
    }

    /// Every lease row: the bundle and who holds it.
    func leases() throws(CacheError) -> [(bundle: Digest, holder: LeaseHolder)] {
        let query = try database.prepare("SELECT bundle, pid, start FROM leases")
        var result: [(Digest, LeaseHolder)] = []
        while try query.step() { result.append((try query.digest(0), LeaseHolder(pid: Int32(query.int(1)), start: query.text(2)))) }
        return result
    }

    /// Bundles a live process leases (each holder checked once).
    func leasedByLiveProcesses() throws(CacheError) -> Set<Digest> {
        var alive: [LeaseHolder: Bool] = [:]
        var leased = Set<Digest>()
        for (bundle, holder) in try leases() {
            let live = alive[holder] ?? holder.isAlive
            alive[holder] = live
            if live { leased.insert(bundle) }
        }
        return leased
    }

    /// Deletes the lease rows (and the holds on objects) of holders that no longer run.
    /// - Returns: how many lease holders they were.
    @discardableResult
    func removeDeadLeases() throws(CacheError) -> Int {
        let dead = Set(try leases().map(\.holder)).filter { !$0.isAlive }
        let remove = try database.prepare("DELETE FROM leases WHERE pid = ? AND start = ?")
        for holder in dead { try remove.bind(.int(Int64(holder.pid)), .text(holder.start)).run() }
        try removeDeadHolds()
        return dead.count
    }

    /// Adds the `start` column to a lease table made before holders had start marks (its rows,
    /// of an older version's processes, get "": checked by process id alone).
    func addLeaseHolderStarts() throws(CacheError) {
        let column = try database.prepare("SELECT COUNT(*) FROM pragma_table_info('leases') WHERE name = 'start'")
        guard try column.step(), column.int(0) == 0 else { return }
        try database.execute("ALTER TABLE leases ADD COLUMN start TEXT NOT NULL DEFAULT ''")
    }

    // MARK: Removals that wait for a lease

    /// Records bundles to remove once no live process leases them.
    func deferRemoval(_ bundles: [Digest]) throws(CacheError) {
        let insert = try database.prepare("INSERT OR IGNORE INTO deferred_removals(bundle) VALUES(?)")
        for bundle in bundles { try insert.bind(.text(bundle.description)).run() }
    }

    /// Forgets a waiting removal: the bundle is wanted again (a scope keeps it, it is pinned or
    /// installed again).
    func cancelDeferredRemoval(_ bundle: Digest) throws(CacheError) {
        try database.prepare("DELETE FROM deferred_removals WHERE bundle = ?").bind(.text(bundle.description)).run()
    }

    /// Bundles whose removal waits for their leases to end, sorted.
    func deferredRemovals() throws(CacheError) -> [Digest] {
        let query = try database.prepare("SELECT bundle FROM deferred_removals ORDER BY bundle")
        var digests: [Digest] = []
        while try query.step() { digests.append(try query.digest(0)) }
        return digests
    }

    func isRemovalDeferred(_ bundle: Digest) throws(CacheError) -> Bool {
        try database.prepare("SELECT 1 FROM deferred_removals WHERE bundle = ?").bind(.text(bundle.description)).step()
    }

    /// Lets bundles `clearAll` picks go however they are kept: out of every scope, unpinned,
    /// and (for a purge, `embedding`) no longer the embedded default.
    func dropKeepers(of bundles: [Digest], embedding: Bool) throws(CacheError) {
        let scopes = try database.prepare("DELETE FROM scopes WHERE bundle = ?")
        let unpin = try database.prepare(
            embedding ? "UPDATE bundles SET pinned = 0, embedded = 0 WHERE digest = ?" : "UPDATE bundles SET pinned = 0 WHERE digest = ?")
        for bundle in bundles {
            try scopes.bind(.text(bundle.description)).run()
            try unpin.bind(.text(bundle.description)).run()
        }
    }
}
