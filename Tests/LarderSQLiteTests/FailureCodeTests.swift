import Foundation
import LarderSQLite
import Testing

/// SQLite's failures arrive with the code a caller acts on: a lock held elsewhere is busy (and
/// `withoutWaiting` gives nil for it), a file that is not a database is notADatabase, a
/// damaged one corrupt.
@Suite struct FailureCodeTests {
    @Test func aLockHeldByAnotherConnectionIsBusy() throws {
        let folder = try TemporaryFolder.make("busy")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/db.sqlite"
        let holder = try SQLiteDatabase<SQLiteError>(path: path)
        try holder.switchToWAL(lockPath: folder + "/setup-lock")
        try holder.execute("CREATE TABLE t(x)")
        try holder.execute("BEGIN IMMEDIATE")
        let other = try SQLiteDatabase<SQLiteError>(path: path)
        let started = ContinuousClock.now
        let inserted = try other.withoutWaiting { () throws(SQLiteError) -> Bool in
            try other.transaction { () throws(SQLiteError) -> Bool in
                try other.execute("INSERT INTO t VALUES(1)")
                return true
            }
        }
        #expect(inserted == nil)
        #expect(started.duration(to: .now) < .seconds(1), "it waited for the lock")
        do {
            try other.execute("PRAGMA busy_timeout=0")
            try other.execute("BEGIN IMMEDIATE")
            Issue.record("the lock was taken twice")
        } catch {
            #expect(error.code == .busy)
        }
        try holder.execute("COMMIT")
    }

    @Test func aFileThatIsNotADatabaseIsNotADatabase() throws {
        let folder = try TemporaryFolder.make("notadb")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/db.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        do {
            let database = try SQLiteDatabase<SQLiteError>(path: path)
            _ = try database.journalMode()
            Issue.record("a text file was read as a database")
        } catch {
            #expect(error.code == .notADatabase)
            #expect(error.path == path)
        }
    }

    @Test func aDamagedDatabaseIsCorrupt() throws {
        let folder = try TemporaryFolder.make("corrupt")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/db.sqlite"
        do {
            let database = try SQLiteDatabase<SQLiteError>(path: path)
            try database.execute("CREATE TABLE t(x); INSERT INTO t VALUES(randomblob(3000)), (randomblob(3000)), (randomblob(3000));")
        }
        // Keep the header (page 1) and overwrite the table's pages.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count > 4096)
        for index in 4096..<bytes.count { bytes[index] = 0xFF }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            let database = try SQLiteDatabase<SQLiteError>(path: path)
            let rows = try database.prepare("SELECT x FROM t")
            while try rows.step() {}
            Issue.record("a damaged database was read")
        } catch {
            #expect(error.code == .corrupt)
        }
    }
}
