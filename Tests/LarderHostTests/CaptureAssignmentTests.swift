import Foundation
import LarderCache
import LarderFormat
@testable import LarderHost
import LarderSQLite
import LarderTestSupport
import Testing

/// Issue 21 item 11: captures carry the rollout assignment, stored in a column later than the
/// first queue schema (an older queue file is upgraded in place) and sent as `X-Larder-Rollout`.
@Suite("Rollout assignment in captures")
struct CaptureAssignmentTests {
    static let assignment = RolloutAssignment(bucket: 7, percent: 30, side: .new)

    @Test("An older capture queue keeps its events and gains the rollout column")
    func upgradesAnOlderQueue() throws {
        let folder = try CaptureFolder()
        let path = folder.path + "/captures.sqlite"
        let created = Int64(bitPattern: Date(timeIntervalSince1970: 1_700_000_000).timeIntervalSinceReferenceDate.bitPattern)
        do {
            let old = try SQLiteDatabase<SQLiteError>(path: path)
            try old.execute(
                """
                PRAGMA journal_mode=WAL;
                CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE events(
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE, visitor BLOB, session BLOB,
                    journey BLOB, revision INTEGER NOT NULL, bundle TEXT NOT NULL, context BLOB NOT NULL,
                    body BLOB, created INTEGER NOT NULL);
                CREATE TABLE delivered(seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE);
                INSERT INTO meta VALUES('format', 'larder-capture-queue'), ('schema', '1'), ('visitor', 'visitor-old');
                INSERT INTO events(id, visitor, session, journey, revision, bundle, context, body, created)
                VALUES(CAST('old-1' AS BLOB), CAST('visitor-old' AS BLOB), CAST('s' AS BLOB), CAST('onboarding' AS BLOB), 3,
                    '\(SHA256Hasher.hash(Array("bundle".utf8)).description)', CAST('{}' AS BLOB), CAST('{}' AS BLOB), \(created));
                """)
        }
        let queue = try CaptureQueue(path: path)
        #expect(try queue.visitor() == "visitor-old")
        let before = try queue.pending()
        #expect(before.map(\.id) == ["old-1"] && before.first?.assignment == nil && before.first?.revision == 3)
        var event = captureEvent(1)
        event.assignment = Self.assignment
        #expect(try queue.enqueue(event))
        #expect(try queue.pending().map(\.assignment) == [nil, Self.assignment])
        // Opened again (the column is there now): nothing changes.
        #expect(try CaptureQueue(path: path).pending() == queue.pending())
    }

    @Test("Both sides round-trip through the queue; none stays none", arguments: [
        RolloutAssignment(bucket: 0, percent: 1, side: .new), RolloutAssignment(bucket: 99, percent: 99, side: .previous), nil,
    ])
    func roundTrips(_ assignment: RolloutAssignment?) throws {
        let folder = try CaptureFolder()
        let queue = try CaptureQueue(path: folder.path + "/captures.sqlite")
        var event = captureEvent(1)
        event.assignment = assignment
        #expect(try queue.enqueue(event))
        #expect(try queue.pending() == [event])
    }

    @Test("The HTTP sink sends X-Larder-Rollout during a rollout, and no such header without one")
    func sinkHeader() async throws {
        let transport = RecordingTransport(status: 202)
        let sink = HTTPCaptureSink(endpoint: HTTPCaptureSinkTests.endpoint, publishableKey: "pk", transport: transport)
        var inside = captureEvent(1)
        inside.assignment = Self.assignment
        let receipt = await sink.deliver([inside, captureEvent(2)])
        #expect(receipt.settled == 2)
        #expect(transport.requests.map { $0.headers["X-Larder-Rollout"] } == ["bucket=7; percent=30; side=new", nil])
    }

    @Test("A tracked event carries the identity's side of the rollout")
    func trackedEventCarriesIt() async throws {
        let user = RolloutRuleTests.user(in: false, percent: 10)
        let fixture = try HostFixture()
        try RolloutRuleTests.publish(fixture, "onboarding")
        try RolloutRuleTests.publish(fixture, "paywall", rollout: 10)
        let host = try fixture.host(configuration: fixture.configuration(identity: user))
        let prepared = try await host.prepare()
        #expect(prepared.assignment?.side == .previous)
        _ = try await host.track("plan_viewed")
        let queued = try await host.captureQueue().pending()
        #expect(queued.count == 1 && queued.first?.assignment == prepared.assignment)
        await host.dispose()
    }
}
