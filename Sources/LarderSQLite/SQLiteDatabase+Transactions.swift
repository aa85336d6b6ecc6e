import CSQLite
import LarderSystem

extension SQLiteDatabase {
    /// Runs one statement that returns no rows through ``prepare(_:)``, so it is compiled once
    /// per connection.
    private func run(_ sql: String) throws(Failure) {
        try prepare(sql).run()
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT`, rolling back if it throws. Writers in
    /// every process sharing the file are serialised by SQLite's lock.
    /// - Returns: what `body` returned.
    /// - Throws: what `body` threw, or `Failure` when the transaction cannot begin or commit.
    package func transaction<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            do { try run("ROLLBACK") } catch { /* the transaction is already gone */ }
            throw error
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT` without waiting for the disk
    /// (`synchronous=NORMAL` for this transaction, then `FULL` again), for records whose loss
    /// in a power cut is harmless: lease rows (their process is gone with it) and use times.
    /// WAL mode keeps the file consistent either way.
    package func hintTransaction<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        try run("PRAGMA synchronous=NORMAL")
        do {
            let result = try transaction(body)
            try run("PRAGMA synchronous=FULL")
            return result
        } catch {
            try run("PRAGMA synchronous=FULL")
            throw error
        }
    }

    /// Runs `body` without waiting for a lock another connection holds (`sqlite3_busy_timeout`
    /// 0 for its duration).
    /// - Returns: nil when the lock was held (nothing was changed: the transaction rolled
    ///   back); the caller may try again where waiting is allowed.
    package func withoutWaiting<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T? {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Self.busyTimeout) }
        do { return try body() } catch where error.isBusy { return nil }
    }

    /// Switches the database to WAL once, even when several processes open a new file at once.
    /// The switch needs an exclusive lock that SQLite refuses at once (`SQLITE_BUSY`, without
    /// its busy wait) while another connection reads, so it is made under an exclusive `flock`
    /// of `lockPath`, after checking again; a database already in WAL takes no lock.
    package func switchToWAL(lockPath: String) throws(Failure) {
        if try journalMode() == "wal" { return }
        let failure = { (error: Errno) in Failure(sqlite: SQLiteError(.io, "cannot lock: \(error)", path: lockPath)) }
        _ = try FileLock.holding(lockPath, .exclusive, failure: failure) { () throws(Failure) in
            if try journalMode() != "wal" { try execute("PRAGMA journal_mode=WAL") }
        }
    }

    /// The journal mode (`PRAGMA journal_mode`), lowercased.
    package func journalMode() throws(Failure) -> String {
        let mode = try prepare("PRAGMA journal_mode")  // reset on return, ending its read
        return try mode.step() ? mode.text(0).lowercased() : ""
    }
}
