import Foundation
import LarderCache
import LarderHost
import LarderSQLite
import Testing

/// A host state written before denials and fitting revisions were recorded is upgraded in
/// place: its rows are kept, and the new fields work.
@Suite("Host state upgrade")
struct HostStoreUpgradeTests {
    @Test("An older host.sqlite keeps its rows and gains the new columns")
    func upgradesInPlace() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let scope = fixture.configuration().scope
        try FileManager.default.createDirectory(atPath: fixture.root + "/host", withIntermediateDirectories: true)
        let notBefore = Int64((fixture.clock.now.timeIntervalSince1970 + 600) * 1000)
        do {
            let old = try SQLiteDatabase<SQLiteError>(path: fixture.root + "/host/host.sqlite")
            try old.execute(
                """
                PRAGMA journal_mode=WAL;
                CREATE TABLE scopes(
                    scope TEXT PRIMARY KEY, document BLOB, etag TEXT, renewed_ms INTEGER,
                    failures INTEGER NOT NULL, not_before_ms INTEGER, not_found INTEGER NOT NULL);
                INSERT INTO scopes VALUES('\(scope)', NULL, NULL, NULL, 2, \(notBefore), 0);
                """)
        }
        let host = try fixture.host()
        let status = try await host.status()
        #expect(status.failures == 2)
        #expect(status.nextAttempt.map { Int64($0.timeIntervalSince1970 * 1000) } == notBefore)
        #expect(status.denial == nil)
        // The new fields are written and read back.
        fixture.origin.behaviour = .status(403, [:])
        await host.refresh(force: true)
        #expect(try await host.status().denial == JourneyDenial(status: 403, time: fixture.clock.now, contentKept: false))
    }
}
