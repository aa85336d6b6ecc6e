import CSQLite

/// One SQLite connection (`sqlite3_open_v2`), closed on `deinit`. Not thread-safe: its owner
/// serialises access with its own lock.
///
/// Every call reports failures as `Failure`, the owner's error, made from an ``SQLiteError``
/// by the owner's ``SQLiteFailure`` conformance; a connection for no particular owner uses
/// `SQLiteDatabase<SQLiteError>`.
package final class SQLiteDatabase<Failure: SQLiteFailure> {
    let handle: OpaquePointer
    /// The database file (or `:memory:`).
    package let path: String
    /// Compiled statements not in use, by SQL text: a statement prepared again (each launch
    /// reads a scope's record several times; every transaction begins and commits) is reset
    /// instead of compiled again.
    private var idleStatements: [String: OpaquePointer] = [:]
    /// The most statements kept compiled while not in use.
    package static var idleStatementLimit: Int { 64 }
    /// How long a call waits for another connection's lock, in milliseconds.
    static var busyTimeout: Int32 { 30_000 }

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, Self.busyTimeout)
    }

    deinit {
        for statement in idleStatements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs statements that return no rows (`sqlite3_exec`).
    /// - Throws: `Failure` for the first statement that fails.
    package func execute(_ sql: String) throws(Failure) {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        if status != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "status \(status)"
            sqlite3_free(error)
            throw Failure(sqlite: SQLiteError(status: status, "database: \(message) (in \(sql.prefix(40)))", path: path))
        }
    }

    /// Prepares one statement (`sqlite3_prepare_v2`), or takes the compiled one an earlier
    /// ``Statement`` of the same text left when it ended.
    /// - Throws: `Failure` when the SQL does not compile.
    package func prepare(_ sql: String) throws(Failure) -> Statement<Failure> {
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
    func recycle(_ statement: OpaquePointer, sql: String) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        guard idleStatements[sql] == nil, idleStatements.count < Self.idleStatementLimit else {
            sqlite3_finalize(statement)
            return
        }
        idleStatements[sql] = statement
    }

    /// Rows changed by the last statement (`sqlite3_changes`).
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// The owner's error for a failed call, with SQLite's message (`sqlite3_errmsg`).
    func failure(_ status: Int32, _ action: String) -> Failure {
        Failure(sqlite: SQLiteError(
            status: status, "database \(action) failed: \(String(cString: sqlite3_errmsg(handle))) (\(status))", path: path))
    }
}
