import Foundation
@testable import LarderCache
import LarderHost
import LarderSQLite
import LarderTestSupport
import Synchronization
import Testing

/// The host never holds a cooperative-pool thread while its storage waits: with the cache's
/// sweep lock held by another process, a preparation waits for it off the actor, and the host
/// keeps answering.
@Suite struct NonBlockingHostTests {
    /// Holds `path`'s lock exclusively in another process (`flock(1)` over a long `sleep`) until
    /// the test kills it: how long it is held never races how fast a busy machine runs the test.
    static func holdLock(_ path: String) throws -> pid_t {
        // -o: the lock stays with flock itself, not with the sleep it starts; its own process
        // group, so one kill ends both. Held up to 10 minutes (every test releases it): a test
        // process whose cooperative threads another test's blocking wait holds can take two.
        let arguments = ["/usr/bin/flock", "-o", "-x", path, "sleep", String(Int(600 * testTimeScale))]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/usr/bin/flock", nil, &attributes, argv, environ)
        guard status == 0 else { throw HostError(.storage, "cannot start flock: \(String(cString: strerror(status)))") }
        return pid
    }

    /// Ends the holder and its `sleep` (the lock goes with them).
    static func release(_ holder: pid_t) {
        kill(-holder, SIGKILL)
        var status: Int32 = 0
        waitpid(holder, &status, 0)
    }

    /// Whether another process holds `path`'s lock.
    static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test func statusAnswersWhileAPreparationWaitsForTheCacheLock() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        // The bundle is cached, so the preparation's only wait is the authorisation's retain,
        // which takes the sweep lock exclusively.
        _ = try fixture.cache.install(archiveAt: try fixture.archive("onboarding"))
        let host = try fixture.host()
        let lock = fixture.cache.root + "/sweep.lock"
        let holder = try Self.holdLock(lock)
        var released = false
        defer { if !released { Self.release(holder) } }
        // Up to 30 s for flock to start and take it (a busy machine can take seconds to run it).
        _ = await eventually(within: .seconds(30)) { Self.isHeld(lock) }
        try #require(Self.isHeld(lock))

        let started = ContinuousClock.now
        let preparation = Task { try await host.prepare() }
        try await Task.sleep(for: .milliseconds(300))
        // Meanwhile the host answers. Were its actor blocked in the lock wait, `status` would
        // not return until the lock is released, which happens only after this: the watchdog
        // ends the wait (10 s, room for a busy machine) and the test fails instead of hanging.
        let asked = ContinuousClock.now
        let status = await value(within: .seconds(10)) { try? await host.status() } ?? nil  // nil: no answer in time, or an error
        let answered = Self.seconds(since: asked)
        guard status?.journey == HostFixture.journey else {
            Issue.record("no status within 10 s while the lock was held: the host's actor waits for the cache's lock")
            Self.release(holder)  // unblocks it, so the test ends
            released = true
            return
        }
        print("status answered in \(answered) s while another process held the cache's sweep lock")
        #expect(Self.isHeld(lock))
        // Still waiting for the lock, and done as soon as it is free.
        #expect(await host.readiness == .preparing)
        let waited = Self.seconds(since: started)
        Self.release(holder)
        released = true
        let prepared = try await preparation.value
        #expect(prepared.bundle == (try fixture.cache.bundles().first?.digest))
        #expect(waited >= 0.3)
        await host.dispose()
    }

    @Test func statusAnswersWhileARecordWaitsForTheHostStoresWriteLock() async throws {
        let fixture = try HostFixture()
        fixture.origin.behaviour = .offline
        let host = try fixture.host()
        _ = try await host.status()  // the host store exists
        // Another connection (as another process sharing the storage would) holds the write lock.
        let other = try SQLiteDatabase<SQLiteError>(path: fixture.root + "/host/host.sqlite")
        try other.execute("BEGIN IMMEDIATE")
        var committed = false
        defer { if !committed { _ = try? other.execute("ROLLBACK") } }  // already ended: nothing to undo

        let preparation = Task { try await host.prepare() }
        try await Task.sleep(for: .milliseconds(300))
        let status = await value(within: .seconds(10)) { try? await host.status() } ?? nil
        guard status != nil else {
            Issue.record("no status within 10 s while the host store's write lock was held")
            try other.execute("COMMIT")
            committed = true
            return
        }
        #expect(await host.readiness == .preparing, "the failure's record is still waiting for the lock")
        try other.execute("COMMIT")
        committed = true
        do {
            _ = try await preparation.value
            Issue.record("prepared with nothing cached and the origin offline")
        } catch let error as HostError {
            #expect(error.code == .unavailable)
        }
        #expect(try await host.status().failures == 1, "the failure was recorded once the lock was free")
        await host.dispose()
    }

    /// The presentation-started event and the content's captures wait off the actor, in order,
    /// while another connection holds the capture queue's write lock; the presentation goes on.
    @Test func presentingGoesOnWhileTheCaptureQueueWaitsForItsWriteLock() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        #expect(try await host.pendingCaptures().isEmpty)  // the capture queue exists
        let other = try SQLiteDatabase<SQLiteError>(path: fixture.root + "/host/capture.sqlite")
        try other.execute("BEGIN IMMEDIATE")
        var committed = false
        defer { if !committed { _ = try? other.execute("ROLLBACK") } }  // already ended: nothing to undo

        // Were the event written on the actor, present() would sit in SQLite's busy wait (up to
        // 30 s) holding it: the watchdog ends the test's wait instead (10 s, room for a busy
        // machine).
        let session = await value(within: .seconds(10)) { try? await host.present() } ?? nil
        guard let session else {
            Issue.record("no presentation within 10 s while the capture queue's write lock was held")
            try other.execute("COMMIT")
            committed = true
            return
        }
        renderer.post(.capture(event: "answer", body: Array(#"{"plan":"annual"}"#.utf8)))
        #expect(renderer.record.shown == [session])
        #expect(try await host.pendingCaptures().isEmpty, "both events wait for the lock")
        #expect(try await host.status().journey == HostFixture.journey)

        try other.execute("COMMIT")
        committed = true
        let expected = [session.id + "/presented", "answer"]
        var pending: [String] = []
        var noted = 0
        for _ in 0..<500 where pending != expected || noted < 2 {
            try await Task.sleep(for: .milliseconds(20))
            pending = try await host.pendingCaptures().map(\.id)
            noted = await host.timeline().filter { $0.kind == .captured }.count
        }
        #expect(pending == expected, "written once the lock was free, in the order they came")
        #expect(noted == 2, "the timeline says so")
        await host.dispose()
    }
}
