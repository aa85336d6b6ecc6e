import CSQLite

/// A prepared statement; when it ends (`deinit`) it is reset, which ends any read it had
/// begun, and given back to its database to be used again.
package final class Statement<Failure: SQLiteFailure> {
    private let handle: OpaquePointer
    private let sql: String
    /// The connection it was prepared on.
    package let database: SQLiteDatabase<Failure>

    init(handle: OpaquePointer, sql: String, database: SQLiteDatabase<Failure>) {
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit { database.recycle(handle, sql: sql) }

    /// Binds parameters by position (1-based) after resetting (`sqlite3_bind_*`).
    /// - Returns: the statement, to step or run.
    @discardableResult
    package func bind(_ values: SQLiteValue...) throws(Failure) -> Statement {
        try bind(values)
    }

    /// Binds parameters by position (1-based) after resetting (`sqlite3_bind_*`).
    /// - Returns: the statement, to step or run.
    @discardableResult
    package func bind(_ values: [SQLiteValue]) throws(Failure) -> Statement {
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

    /// Steps once (`sqlite3_step`).
    /// - Returns: true when a row is available.
    package func step() throws(Failure) -> Bool {
        let status = sqlite3_step(handle)
        if status == SQLITE_ROW { return true }
        if status == SQLITE_DONE { return false }
        throw database.failure(status, "step")
    }

    /// Steps to the end, for statements that return no rows.
    package func run() throws(Failure) {
        while try step() {}
        sqlite3_reset(handle)
    }

    /// An integer column of the current row (`sqlite3_column_int64`).
    package func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// Whether a column of the current row is NULL.
    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// A text column of the current row (`sqlite3_column_text`), "" for NULL.
    package func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// A text column's bytes (`sqlite3_column_text`, `sqlite3_column_bytes`), valid only
    /// inside `body`: no String is made, for scans over many rows.
    package func withTextBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws(Failure) -> T) throws(Failure) -> T {
        let pointer = sqlite3_column_text(handle, column)
        let count = pointer == nil ? 0 : Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// A blob column of the current row (`sqlite3_column_blob`), empty for NULL.
    package func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
