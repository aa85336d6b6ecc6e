import LarderCache
import LarderSQLite
import Testing

/// The cache index's one mapping from SQLite's error: a full disk and a read-only file keep
/// their meaning (the CLI's exit status depends on them), a held lock stays busy, a FIFO or link
/// in the index's place is a foreign entry, anything else a storage failure; the message and
/// path are kept.
@Suite struct CacheErrorFromSQLiteTests {
    @Test(arguments: [
        (SQLiteError.Code.full, CacheError.Code.diskFull), (.readOnly, .readOnly), (.busy, .busy),
        (.corrupt, .storage), (.notADatabase, .storage), (.foreignFile, .foreignEntry), (.io, .storage), (.failed, .storage),
    ])
    func sqliteFailuresKeepTheirKind(_ sqlite: SQLiteError.Code, _ expected: CacheError.Code) {
        let error = CacheError(sqlite: SQLiteError(sqlite, "database step failed: disk I/O error (10)", path: "/cache/index.sqlite"))
        #expect(error.code == expected)
        #expect(error.message == "database step failed: disk I/O error (10)")
        #expect(error.path == "/cache/index.sqlite")
    }
}
