/// The error a client of ``SQLiteDatabase`` reports: each client (the cache's index, the
/// host's stores) says once, in its conformance, how an ``SQLiteError`` becomes its own error.
/// A connection made for one client throws that client's error from every call, so bodies of
/// transactions may throw it too.
package protocol SQLiteFailure: Error {
    /// The client's error for an SQLite failure.
    init(sqlite error: SQLiteError)
    /// Whether this is a lock another connection held (``SQLiteError/Code/busy``), which
    /// ``SQLiteDatabase/withoutWaiting(_:)`` answers with nil.
    var isBusy: Bool { get }
}

extension SQLiteError: SQLiteFailure {
    package init(sqlite error: SQLiteError) { self = error }
    package var isBusy: Bool { code == .busy }
}
