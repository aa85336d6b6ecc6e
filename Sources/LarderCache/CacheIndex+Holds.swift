import LarderFormat

/// Holds on objects: rows (object, holder, token) a fetch writes when it decides which objects
/// it need not download because the store has them, and deletes once its install committed
/// (``LarderCache/holdObjects(of:)``).
///
/// A bundle using a held object counts as leased for every removal (``LarderCache/choose(_:in:)``):
/// eviction skips it, a scope change, logout or purge waits for the hold to end; and a sweep
/// leaves a held object's file alone. So an object found in place stays there until the bundle
/// that reuses it commits, whatever other processes install and evict meanwhile. The rows of a
/// process that died are ignored, and deleted with its leases.
extension CacheIndex {
    func addHolds(_ objects: [Digest], holder: LeaseHolder, token: Int64) throws(CacheError) {
        let insert = try database.prepare("INSERT OR IGNORE INTO object_holds(object, pid, token, start) VALUES(?, ?, ?, ?)")
        for object in objects {
            try insert.bind(.text(object.description), .int(Int64(holder.pid)), .int(token), .text(holder.start)).run()
        }
    }

    func removeHolds(holder: LeaseHolder, token: Int64) throws(CacheError) {
        try database.prepare("DELETE FROM object_holds WHERE pid = ? AND token = ?").bind(.int(Int64(holder.pid)), .int(token)).run()
    }

    /// The processes holding objects, each with whether it still runs.
    private func holders() throws(CacheError) -> [(holder: LeaseHolder, alive: Bool)] {
        let query = try database.prepare("SELECT DISTINCT pid, start FROM object_holds")
        var holders: [LeaseHolder] = []
        while try query.step() { holders.append(LeaseHolder(pid: Int32(query.int(0)), start: query.text(1))) }
        return holders.map { ($0, $0.isAlive) }
    }

    /// Bundles using an object a live process holds.
    /// - Complexity: one scan of the files per live holder, and none when nothing is held.
    func bundlesUsingHeldObjects() throws(CacheError) -> Set<Digest> {
        var bundles = Set<Digest>()
        let query = try database.prepare(
            "SELECT DISTINCT f.bundle FROM files f JOIN object_holds h ON h.object = f.object WHERE h.pid = ? AND h.start = ?")
        for (holder, alive) in try holders() where alive {
            try query.bind(.int(Int64(holder.pid)), .text(holder.start))
            while try query.step() { bundles.insert(try query.digest(0)) }
        }
        return bundles
    }

    /// The hex names of the objects live processes hold, as the sweep compares them with the
    /// files under `objects/`.
    func heldObjectNames() throws(CacheError) -> Set<String> {
        var names = Set<String>()
        let query = try database.prepare("SELECT object FROM object_holds WHERE pid = ? AND start = ?")
        for (holder, alive) in try holders() where alive {
            try query.bind(.int(Int64(holder.pid)), .text(holder.start))
            while try query.step() { names.insert(String(query.text(0).dropFirst(Digest.prefix.count))) }
        }
        return names
    }

    /// Deletes the holds of processes that no longer run.
    func removeDeadHolds() throws(CacheError) {
        let remove = try database.prepare("DELETE FROM object_holds WHERE pid = ? AND start = ?")
        for (holder, alive) in try holders() where !alive { try remove.bind(.int(Int64(holder.pid)), .text(holder.start)).run() }
    }

    /// Whether any removal waits for a lease or a hold to end.
    func hasDeferredRemovals() throws(CacheError) -> Bool {
        let query = try database.prepare("SELECT EXISTS(SELECT 1 FROM deferred_removals)")
        return try query.step() && query.int(0) != 0
    }
}
