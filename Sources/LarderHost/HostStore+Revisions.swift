import LarderCache

/// The highest revision each scope accepted, kept apart from the scope's record: a discard
/// (a denial, a confirmed 404) forgets the record but never this floor, so an older signed
/// document replayed later is still a rollback.
extension HostStore {
    /// The highest revision `scope` accepted, nil before its first.
    func highestAcceptedRevision(_ scope: String) throws(HostError) -> Int64? {
        do {
            return try database.with { (database) throws(CacheError) -> Int64? in
                let statement = try database.prepare("SELECT revision FROM accepted WHERE scope = ?").bind(.text(scope))
                return try statement.step() ? statement.int(0) : nil
            }
        } catch {
            throw HostError(.storage, "cannot read the host state", cacheError: error)
        }
    }

    /// Raises the floor of `scope` to `revision` (never lowers it).
    /// - Parameter waiting: false to give up at once, changing nothing, when another
    ///   connection holds the write lock.
    /// - Returns: false when it gave up.
    func accept(revision: Int64, for scope: String, waiting: Bool) throws(HostError) -> Bool {
        func write(_ database: SQLiteDatabase) throws(CacheError) {
            try database.prepare(
                """
                INSERT INTO accepted(scope, revision) VALUES (?, ?)
                ON CONFLICT(scope) DO UPDATE SET revision = max(revision, excluded.revision)
                """
            ).bind(.text(scope), .int(revision)).run()
        }
        do {
            return try database.with { (database) throws(CacheError) -> Bool in
                if waiting { try write(database); return true }
                return try database.withoutWaiting({ () throws(CacheError) in try write(database) }) != nil
            }
        } catch {
            throw HostError(.storage, "cannot write the host state", cacheError: error)
        }
    }
}
