import Foundation
import LarderCache
import LarderSQLite
import LarderTestSupport
import Testing

/// Several app processes starting at once on one new cache all open (and, for an older file,
/// upgrade) its host state and capture queue. A CI run had one of four `journey prepare`
/// processes fail with "duplicate column name" (each added the columns another had just added);
/// with that fixed, this test then found `PRAGMA journal_mode=WAL` failing with "database is
/// locked" on a new capture queue (SQLite refuses the switch at once while another connection
/// reads).
@Suite struct HostStoreOpeningTests {
    @Test func eightProcessesOpeningOneNewOrOlderHostStateAllSucceed() async throws {
        let work = try Workspace()
        for round in 0..<6 {
            let cache = work.path + "/cache-\(round)"
            // status reads a cache that is there (a missing folder is exit 66); the host store
            // in it is opened by the eight at once.
            try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
            if round % 2 == 1 {
                // A host state written before denials and fitting revisions were recorded.
                try FileManager.default.createDirectory(atPath: cache + "/host", withIntermediateDirectories: true)
                let old = try SQLiteDatabase<SQLiteError>(path: cache + "/host/host.sqlite")
                try old.execute(
                    """
                    PRAGMA journal_mode=WAL;
                    CREATE TABLE scopes(
                        scope TEXT PRIMARY KEY, document BLOB, etag TEXT, renewed_ms INTEGER,
                        failures INTEGER NOT NULL, not_before_ms INTEGER, not_found INTEGER NOT NULL);
                    """)
            }
            let running = try (0..<8).map { _ in
                try LarderProcess.start([
                    "journey", "status", "--origin", "http://127.0.0.1:9/", "--key", "pk", "--journey", "onboarding", "--cache", cache,
                ])
            }
            for process in running {
                let outcome = await process.wait(watchdog: .seconds(60))
                #expect(outcome.status == 0, "round \(round): \(outcome)")
            }
        }
    }
}
