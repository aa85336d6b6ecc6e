import LarderFormat
import LarderSQLite

/// What each scope accepted, kept apart from the scope's record: the highest revision (a
/// discard, after a denial or a confirmed 404, forgets the record but never this floor, so an
/// older signed document replayed later is still a rollback), and the digest of the last
/// document whose signature this host verified when it accepted it.
extension HostStore {
    /// The highest revision `scope` accepted (nil before its first), and the digest of the
    /// canonical bytes of the last document whose signature was verified on acceptance.
    func accepted(_ scope: String) throws(HostError) -> (revision: Int64?, verified: Digest?) {
        do {
            return try database.withLock { (database) throws(HostStorageError) -> (revision: Int64?, verified: Digest?) in
                let statement = try database.prepare("SELECT revision, verified FROM accepted WHERE scope = ?").bind(.text(scope))
                guard try statement.step() else { return (nil, nil) }
                let blob = statement.isNull(1) ? [] : statement.blob(1)
                let verified = blob.count == 32 ? Digest(bytes: blob) : nil  // anything else: verify again
                return (statement.int(0), verified)
            }
        } catch {
            throw failure(error, "cannot read the host state")
        }
    }

    /// The highest revision `scope` accepted, nil before its first.
    func highestAcceptedRevision(_ scope: String) throws(HostError) -> Int64? {
        try accepted(scope).revision
    }

    /// Raises the floor of `scope` to `revision` (never lowers it) and records which document
    /// was verified (nil: none was).
    /// - Parameter waiting: false to give up at once, changing nothing, when another
    ///   connection holds the write lock.
    /// - Returns: false when it gave up.
    func accept(revision: Int64, verified: Digest?, for scope: String, waiting: Bool) throws(HostError) -> Bool {
        func write(_ database: HostDatabase) throws(HostStorageError) {
            try database.prepare(
                """
                INSERT INTO accepted(scope, revision, verified) VALUES (?, ?, ?)
                ON CONFLICT(scope) DO UPDATE SET revision = max(revision, excluded.revision), verified = excluded.verified
                """
            ).bind(.text(scope), .int(revision), verified.map { .blob($0.bytes) } ?? .null).run()
        }
        do {
            return try database.withLock { (database) throws(HostStorageError) -> Bool in
                if waiting { try write(database); return true }
                return try database.withoutWaiting({ () throws(HostStorageError) in try write(database) }) != nil
            }
        } catch {
            throw failure(error, "cannot write the host state")
        }
    }
}
