import CSQLite
import LarderFormat
import LarderSystem

/// One SQLite connection (`sqlite3_open_v2`), closed on `deinit`. Not thread-safe: the cache
/// serialises access with its own lock.
package final class SQLiteDatabase {
    private let handle: OpaquePointer
    let path: String
    /// Compiled statements not in use, by SQL text: a statement prepared again (each launch
    /// reads a scope's record several times; every transaction begins and commits) is reset
    /// instead of compiled again.
    private var idleStatements: [String: OpaquePointer] = [:]
    /// The most statements kept compiled while not in use.
    static let idleStatementLimit = 64

    /// Opens (creating) the database at `path` for reading and writing.
    package init(path: String) throws(CacheError) {
        handle = try Self.open(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, path: path)
        self.path = path
        sqlite3_busy_timeout(handle, Self.busyTimeout)
        // Keep the -wal file when the last connection closes: a new process's first write then
        // reuses it instead of creating and syncing a new one (and its folder).
        var persist: Int32 = 1
        sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    }

    /// Opens an existing database only to read it (`SQLITE_OPEN_READONLY`): nothing is created
    /// or written, so it works on a read-only file system and in another user's folder.
    ///
    /// A WAL database needs its `-shm` file, which SQLite opens read-only when it cannot write
    /// it. When that file is missing and cannot be created here, the database is opened
    /// `immutable` instead, but only if its `-wal` file is absent or empty: then the main file
    /// holds every committed transaction. Otherwise the log may hold transactions the main file
    /// lacks, and the open fails.
    /// - Throws: ``CacheError/Code/readOnly`` when it cannot be read that way.
    package init(readingOnly path: String) throws(CacheError) {
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        var handle = try Self.open(Self.uri(path, immutable: false), flags: flags, path: path)
        sqlite3_busy_timeout(handle, Self.busyTimeout)
        var status = Self.probe(handle)
        if status != SQLITE_OK, [SQLITE_CANTOPEN, SQLITE_READONLY].contains(status & 0xFF), Self.logIsEmpty(path) {
            sqlite3_close_v2(handle)
            handle = try Self.open(Self.uri(path, immutable: true), flags: flags, path: path)
            status = Self.probe(handle)
        }
        guard status == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(handle))
            sqlite3_close_v2(handle)
            guard [SQLITE_CANTOPEN, SQLITE_READONLY].contains(status & 0xFF) else {
                throw CacheError(.storage, "cannot read the database: \(message) (\(status))", path: path)
            }
            throw CacheError(
                .readOnly,
                "cannot read the database without writing to its folder (\(message)): its write-ahead log needs "
                    + "\(path.split(separator: "/").last ?? "")-shm, which is missing and cannot be created here; open it once "
                    + "read-write", path: path)
        }
        self.handle = handle
        self.path = path
    }

    /// `sqlite3_open_v2`, closing the handle again on failure.
    private static func open(_ target: String, flags: Int32, path: String) throws(CacheError) -> OpaquePointer {
        var db: OpaquePointer?
        let status = sqlite3_open_v2(target, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "status \(status)"
            sqlite3_close(db)
            throw CacheError(.storage, "cannot open the database: \(message)", path: path)
        }
        return db
    }

    /// A `file:` URI for `path` (`%`, `?` and `#` escaped), read-only, `immutable` if asked.
    private static func uri(_ path: String, immutable: Bool) -> String {
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "file:" + escaped + "?mode=ro" + (immutable ? "&immutable=1" : "")
    }

    /// Reads the schema (`PRAGMA schema_version`): the first read, where a WAL database opens
    /// its `-shm` file. Returns the status.
    private static func probe(_ handle: OpaquePointer) -> Int32 {
        var statement: OpaquePointer?
        var status = sqlite3_prepare_v2(handle, "PRAGMA schema_version", -1, &statement, nil)
        if status == SQLITE_OK {
            status = sqlite3_step(statement)
            if status == SQLITE_ROW || status == SQLITE_DONE { status = SQLITE_OK }
        }
        sqlite3_finalize(statement)
        return status
    }

    /// Whether the database's `-wal` file is missing or empty.
    private static func logIsEmpty(_ path: String) -> Bool {
        do { return try FileStatus.ofLink(path + "-wal").size == 0 } catch { return error == .notFound }
    }

    deinit {
        for statement in idleStatements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs statements that return no rows (`sqlite3_exec`).
    package func execute(_ sql: String) throws(CacheError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        if status != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "status \(status)"
            sqlite3_free(error)
            throw CacheError(Self.code(status), "database: \(message) (in \(sql.prefix(40)))", path: path)
        }
    }

    /// Prepares one statement (`sqlite3_prepare_v2`), or takes the compiled one an earlier
    /// ``Statement`` of the same text left when it ended.
    package func prepare(_ sql: String) throws(CacheError) -> Statement {
        if let idle = idleStatements.removeValue(forKey: sql) {
            return Statement(handle: idle, sql: sql, database: self)
        }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status, "prepare") }
        return Statement(handle: statement, sql: sql, database: self)
    }

    /// Takes back a statement that ended: reset (which ends its read), kept for its text
    /// unless one already is or enough are, else finalised.
    fileprivate func recycle(_ statement: OpaquePointer, sql: String) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        guard idleStatements[sql] == nil, idleStatements.count < Self.idleStatementLimit else {
            sqlite3_finalize(statement)
            return
        }
        idleStatements[sql] = statement
    }

    /// Runs one statement that returns no rows through ``prepare(_:)``, so it is compiled once
    /// per connection.
    private func run(_ sql: String) throws(CacheError) {
        try prepare(sql).run()
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
        try run("PRAGMA synchronous=NORMAL")
        do {
            let result = try transaction(begin: "BEGIN IMMEDIATE", body)
            try run("PRAGMA synchronous=FULL")
            return result
        } catch {
            try run("PRAGMA synchronous=FULL")
            throw error
        }
    }

    private func transaction<T>(begin: String, _ body: () throws(CacheError) -> T) throws(CacheError) -> T {
        try run(begin)
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            do { try run("ROLLBACK") } catch { /* the transaction is already gone */ }
            throw error
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` without waiting for a lock another connection holds (`sqlite3_busy_timeout`
    /// 0 for its duration).
    /// - Returns: nil when the lock was held (nothing was changed: the transaction rolled
    ///   back); the caller may try again where waiting is allowed.
    package func withoutWaiting<T>(_ body: () throws(CacheError) -> T) throws(CacheError) -> T? {
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Self.busyTimeout) }
        do { return try body() } catch where error.code == .busy { return nil }
    }

    /// Switches the database to WAL once, even when several processes open a new file at once.
    /// The switch needs an exclusive lock that SQLite refuses at once (`SQLITE_BUSY`, without
    /// its busy wait) while another connection reads, so it is made under an exclusive `flock`
    /// of `lockPath`, after checking again; a database already in WAL takes no lock.
    package func switchToWAL(lockPath: String) throws(CacheError) {
        if try journalMode() == "wal" { return }
        let failure = { (error: Errno) in CacheError(.storage, "cannot lock: \(error)", path: lockPath) }
        _ = try FileLock.holding(lockPath, .exclusive, failure: failure) { () throws(CacheError) in
            if try journalMode() != "wal" { try execute("PRAGMA journal_mode=WAL") }
        }
    }

    /// The journal mode (`PRAGMA journal_mode`), lowercased.
    package func journalMode() throws(CacheError) -> String {
        let mode = try prepare("PRAGMA journal_mode")  // reset on return, ending its read
        return try mode.step() ? mode.text(0).lowercased() : ""
    }

    /// How long a call waits for another connection's lock.
    static let busyTimeout: Int32 = 30_000


    package func failure(_ status: Int32, _ action: String) -> CacheError {
        CacheError(
            Self.code(status),
            "database \(action) failed: \(String(cString: sqlite3_errmsg(handle))) (\(status))", path: path)
    }
}

extension SQLiteDatabase {
    /// The error code for a status: ``CacheError/Code/diskFull`` for `SQLITE_FULL`,
    /// ``CacheError/Code/readOnly`` for `SQLITE_READONLY` (a read-only connection, file system
    /// or file), ``CacheError/Code/storage`` for anything else.
    static func code(_ status: Int32) -> CacheError.Code {
        switch status & 0xFF {
        case SQLITE_FULL: .diskFull
        case SQLITE_READONLY: .readOnly
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        default: .storage
        }
    }
}

/// A prepared statement; when it ends (`deinit`) it is reset, which ends any read it had
/// begun, and given back to its database to be used again.
package final class Statement {
    private let handle: OpaquePointer
    private let sql: String
    private let database: SQLiteDatabase

    fileprivate init(handle: OpaquePointer, sql: String, database: SQLiteDatabase) {
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit { database.recycle(handle, sql: sql) }

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
            case .text(let text):
                // By its length, not up to a NUL: a bundle name may hold one (JSON allows it).
                status = text.withCString { sqlite3_bind_text(handle, index, $0, Int32(text.utf8.count), larder_sqlite_transient()) }
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
        return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// A text column's bytes (`sqlite3_column_text`, `sqlite3_column_bytes`), valid only
    /// inside `body`: no String is made, for scans over many rows.
    package func withTextBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws(CacheError) -> T) throws(CacheError) -> T {
        let pointer = sqlite3_column_text(handle, column)
        let count = pointer == nil ? 0 : Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
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
