import CSQLite
import LarderFormat

/// One SQLite connection (`sqlite3_open_v2`), closed on `deinit`. Not thread-safe: the cache
/// serialises access with its own lock.
package final class SQLiteDatabase: @unchecked Sendable {
    private let handle: OpaquePointer
    let path: String

    package init(path: String) throws(CacheError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "status \(status)"
            sqlite3_close(db)
            throw CacheError(.storage, "cannot open the cache index: \(message)", path: path)
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, Self.busyTimeout)
        // Keep the -wal file when the last connection closes: a new process's first write then
        // reuses it instead of creating and syncing a new one (and its folder).
        var persist: Int32 = 1
        sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs statements that return no rows (`sqlite3_exec`).
    package func execute(_ sql: String) throws(CacheError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        if status != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "status \(status)"
            sqlite3_free(error)
            throw CacheError(Self.code(status), "cache index: \(message) (in \(sql.prefix(40)))", path: path)
        }
    }

    /// Prepares one statement (`sqlite3_prepare_v2`).
    package func prepare(_ sql: String) throws(CacheError) -> Statement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status, "prepare") }
        return Statement(handle: statement, database: self)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT`, rolling back if it throws. Writers in
    /// every process sharing the file are serialised by SQLite's lock.
    package func transaction<T>(_ body: () throws(CacheError) -> T) throws(CacheError) -> T {
        try transaction(begin: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT` without waiting for the disk
    /// (`synchronous=NORMAL` for this transaction, then `FULL` again), for records whose loss
    /// in a power cut is harmless: lease rows (their process is gone with it) and use times.
    /// WAL mode keeps the file consistent either way.
    package func hintTransaction<T>(_ body: () throws(CacheError) -> T) throws(CacheError) -> T {
        try execute("PRAGMA synchronous=NORMAL")
        do {
            let result = try transaction(begin: "BEGIN IMMEDIATE", body)
            try execute("PRAGMA synchronous=FULL")
            return result
        } catch {
            try execute("PRAGMA synchronous=FULL")
            throw error
        }
    }

    private func transaction<T>(begin: String, _ body: () throws(CacheError) -> T) throws(CacheError) -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            do { try execute("ROLLBACK") } catch { /* the transaction is already gone */ }
            throw error
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The error code for an SQLite status: a full disk and a lock held elsewhere have their own.
    private static func code(_ status: Int32) -> CacheError.Code {
        switch status & 0xFF {
        case SQLITE_FULL: .diskFull
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        default: .storage
        }
    }

    /// Runs `body` without waiting for a lock another connection holds (`sqlite3_busy_timeout`
    /// 0 for its duration).
    /// - Returns: nil when the lock was held (nothing was changed: the transaction rolled
    ///   back); the caller may try again where waiting is allowed.
    package func withoutWaiting<T>(_ body: () throws(CacheError) -> T) throws(CacheError) -> T? {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Self.busyTimeout) }
        do { return try body() } catch where error.code == .busy { return nil }
    }

    /// How long a call waits for another connection's lock.
    static let busyTimeout: Int32 = 30_000

    package func failure(_ status: Int32, _ action: String) -> CacheError {
        CacheError(Self.code(status), "cache index \(action) failed: \(String(cString: sqlite3_errmsg(handle))) (\(status))", path: path)
    }
}

/// A prepared statement, finalised on `deinit`.
package final class Statement {
    private let handle: OpaquePointer
    private unowned let database: SQLiteDatabase

    fileprivate init(handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds parameters by position (1-based) after resetting.
    @discardableResult
    package func bind(_ values: SQLiteValue...) throws(CacheError) -> Statement {
        try bind(values)
    }

    /// Binds parameters by position (1-based) after resetting.
    @discardableResult
    package func bind(_ values: [SQLiteValue]) throws(CacheError) -> Statement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .int(let number): status = sqlite3_bind_int64(handle, index, number)
            case .text(let text): status = sqlite3_bind_text(handle, index, text, -1, larder_sqlite_transient())
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), larder_sqlite_transient()) }
            case .null: status = sqlite3_bind_null(handle, index)
            }
            guard status == SQLITE_OK else { throw database.failure(status, "bind") }
        }
        return self
    }

    /// Steps once; true when a row is available.
    package func step() throws(CacheError) -> Bool {
        let status = sqlite3_step(handle)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        throw database.failure(status, "step")
    }

    /// Steps to the end, for statements that return no rows.
    package func run() throws(CacheError) {
        while try step() {}
        sqlite3_reset(handle)
    }

    package func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// Whether a column of the current row is NULL.
    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: pointer)
    }

    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// A digest column; a value that does not parse means the index is damaged.
    package func digest(_ column: Int32) throws(CacheError) -> Digest {
        let text = self.text(column)
        do { return try Digest(parsing: text) } catch {
            throw CacheError(.storage, "the cache index holds a damaged digest '\(text.prefix(80))'; purge the cache", path: database.path)
        }
    }

}

package enum SQLiteValue {
    case int(Int64)
    case text(String)
    case blob([UInt8])
    case null
}
