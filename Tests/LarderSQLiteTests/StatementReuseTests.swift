import Foundation
import LarderSQLite
import Testing

/// A statement prepared again is the compiled one an earlier statement of the same text left:
/// it must start over with no bindings, and one dropped mid-read must not keep that read open.
@Suite struct StatementReuseTests {
    static func database() throws -> (SQLiteDatabase<SQLiteError>, String) {
        let folder = try TemporaryFolder.make("statements")
        let database = try SQLiteDatabase<SQLiteError>(path: folder + "/test.sqlite")
        try database.execute("PRAGMA journal_mode=WAL; CREATE TABLE t(id INTEGER PRIMARY KEY, value TEXT)")
        for (id, value) in [(1, "one"), (2, "two"), (3, "three")] {
            try database.prepare("INSERT INTO t(id, value) VALUES(?, ?)").bind(.int(Int64(id)), .text(value)).run()
        }
        return (database, folder)
    }

    @Test func aReusedStatementStartsOverWithoutItsBindings() throws {
        let (database, folder) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sql = "SELECT value FROM t WHERE id = ?"
        do {
            let first = try database.prepare(sql).bind(.int(2))
            #expect(try first.step() && first.text(0) == "two")
        }
        // Unbound, the parameter is NULL again: no row.
        #expect(try database.prepare(sql).step() == false)
        let again = try database.prepare(sql).bind(.int(3))
        #expect(try again.step() && again.text(0) == "three")
        #expect(try again.step() == false)

        // Two statements of one text in use at once are two compiled statements.
        let a = try database.prepare(sql).bind(.int(1))
        let b = try database.prepare(sql).bind(.int(2))
        #expect(try a.step() && b.step())
        #expect(a.text(0) == "one" && b.text(0) == "two")
    }

    /// A read left half-way (a row stepped to, then the statement dropped) ends when the
    /// statement does: a checkpoint from another connection can then take the whole log back.
    @Test func aStatementDroppedMidReadEndsItsRead() throws {
        let (database, folder) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let rows = try database.prepare("SELECT value FROM t ORDER BY id")
            #expect(try rows.step())
        }
        try database.prepare("INSERT INTO t(id, value) VALUES(4, 'four')").run()
        let other = try SQLiteDatabase<SQLiteError>(path: folder + "/test.sqlite")
        let checkpoint = try other.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(try checkpoint.step())
        #expect(checkpoint.int(0) == 0, "the checkpoint was blocked by a read left open")
        #expect(try database.prepare("SELECT COUNT(*) FROM t").step())
    }
}
