import Foundation
import LarderFormat
import Testing
@testable import LarderHost

/// ``HostLifecycle`` as tables: which preparation a call of `prepare()` shares, what a
/// configuration change, a logout or a disposal cancels, and the bookkeeping of authorisation
/// and the embedded default. No host, no polling.
@Suite("Host lifecycle")
struct HostLifecycleTests {
    /// A preparation's task, never awaited here.
    static func work() -> HostLifecycle.Work { Task { throw CancellationError() } }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// The preparation under way: nil for none, else whether it was forced.
        var running: Bool?
        /// A configuration change since it started.
        var changedSince = false
        var forcedCall: Bool
        /// `share`, `waitOut` or `start`.
        var expected: String
        var testDescription: String { name }
    }

    @Test("Which preparation a call shares", arguments: [
        Row(name: "nothing under way: start one", running: nil, forcedCall: false, expected: "start"),
        Row(name: "a call shares the one under way", running: false, forcedCall: false, expected: "share"),
        Row(name: "a forced call waits out one that may serve the cache", running: false, forcedCall: true, expected: "waitOut"),
        Row(name: "a forced call shares a forced one", running: true, forcedCall: true, expected: "share"),
        Row(name: "a call shares a forced one", running: true, forcedCall: false, expected: "share"),
        Row(name: "one of an older configuration is not shared", running: false, changedSince: true, forcedCall: false, expected: "start"),
    ])
    func join(_ row: Row) {
        var lifecycle = HostLifecycle()
        let running = Self.work()
        if let forced = row.running {
            lifecycle.started(running, forced: forced)
            if row.changedSince {
                // A change cancels it; a task of the old generation that registers late is not shared.
                _ = lifecycle.invalidated()
                lifecycle.started(running, forced: forced)
                _ = lifecycle.invalidated()
            }
        }
        let expected: HostLifecycle.Join =
            switch row.expected {
            case "share": .share(running)
            case "waitOut": .waitOut(running)
            default: .start
            }
        #expect(lifecycle.join(forced: row.forcedCall) == expected)
    }

    @Test("A change cancels the preparation under way and drops answers of the old generation")
    func invalidated() {
        var lifecycle = HostLifecycle()
        let old = Self.work()
        lifecycle.started(old, forced: false)
        let generation = lifecycle.generation
        #expect(lifecycle.invalidated() == .cancel(old))
        #expect(!lifecycle.isCurrent(generation) && lifecycle.isCurrent(generation + 1))
        #expect(lifecycle.join(forced: false) == .start)
        #expect(lifecycle.invalidated() == .none, "nothing left to cancel")
    }

    @Test("A preparation that ends forgets itself, not one that took its place")
    func finished() {
        var lifecycle = HostLifecycle()
        let first = Self.work()
        let second = Self.work()
        lifecycle.started(first, forced: false)
        lifecycle.finished(first)
        #expect(lifecycle.preparation == nil)
        lifecycle.started(second, forced: true)
        lifecycle.finished(first)
        #expect(lifecycle.preparation?.task == second)
    }

    @Test("Disposal happens once: it cancels what was under way, and the host stays disposed")
    func disposed() {
        var lifecycle = HostLifecycle()
        let running = Self.work()
        lifecycle.started(running, forced: false)
        #expect(lifecycle.disposed() == .cancel(running))
        #expect(lifecycle.isDisposed && lifecycle.generation == 1)
        #expect(lifecycle.disposed() == nil)
        #expect(lifecycle.generation == 1)
    }

    @Test("Authorisation this launch, per scope; the embedded default until it changes")
    func bookkeeping() throws {
        var lifecycle = HostLifecycle()
        lifecycle.authorised("a")
        lifecycle.authorised("b")
        lifecycle.deauthorised("a")
        #expect(!lifecycle.isAuthorised("a") && lifecycle.isAuthorised("b"))
        let bundle = try Digest(parsing: "sha256:" + String(repeating: "ab", count: 32))
        lifecycle.embeddedImported(bundle)
        #expect(lifecycle.embeddedBundle == bundle)
        lifecycle.embeddedChanged()
        #expect(lifecycle.embeddedBundle == nil)
    }
}
