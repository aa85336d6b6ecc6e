import Foundation
import LarderSystem
import LarderTestSupport
import Testing
@testable import LarderHost

/// Deliveries follow the network [seed 002: "Analytics queue up on the device and drain when the
/// connection returns"]: a connectivity signal feeds ``CaptureDrain``, so queued captures leave
/// when the network comes back with no call of the app's; runs are bounded and, after a failed
/// one, backed off.
@Suite("Deliveries follow the network")
struct ConnectivityDrainTests {
    static let run = CaptureDrain.Action.deliver(maxBatches: CaptureDrain.batchesPerRun)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("The signal's first word sets what it knows; a return starts a run; leaving starts none")
    func returns() {
        var drain = CaptureDrain()
        #expect(drain.networkChanged(available: true, now: Self.now) == .none, "the first word is no return")
        #expect(drain.networkChanged(available: true, now: Self.now) == .none)
        #expect(drain.networkChanged(available: false, now: Self.now) == .none)
        #expect(drain.networkChanged(available: true, now: Self.now) == Self.run)
        #expect(drain.networkChanged(available: false, now: Self.now) == .none)
        #expect(drain.networkChanged(available: true, now: Self.now) == .none, "a run is under way: once more after it")
        #expect(drain.finished(failed: false, now: Self.now) == Self.run)
        #expect(drain.finished(failed: false, now: Self.now) == .none)
    }

    @Test("After a failed run a return waits out a backoff that doubles (2 s, 4 s …, at most 5 min); one wait at a time")
    func backedOff() {
        #expect((1...10).map { CaptureDrain.delay(failures: $0) } == [2, 4, 8, 16, 32, 64, 128, 256, 300, 300].map { Duration.seconds($0) })
        var drain = CaptureDrain()
        _ = drain.networkChanged(available: false, now: Self.now)
        #expect(drain.networkChanged(available: true, now: Self.now) == Self.run)
        #expect(drain.finished(failed: true, now: Self.now) == .none, "a failed run starts no other by itself")
        _ = drain.networkChanged(available: false, now: Self.now)
        let until = Self.now.addingTimeInterval(2)
        #expect(drain.networkChanged(available: true, now: Self.now.addingTimeInterval(1)) == .wait(until: until))
        _ = drain.networkChanged(available: false, now: Self.now.addingTimeInterval(1))
        #expect(drain.networkChanged(available: true, now: Self.now.addingTimeInterval(1)) == .none, "the wait kept")
        #expect(drain.retryDue() == Self.run)
        #expect(drain.finished(failed: true, now: Self.now.addingTimeInterval(2)) == .none)
        #expect(drain.notBefore == Self.now.addingTimeInterval(6))
        _ = drain.networkChanged(available: false, now: Self.now.addingTimeInterval(3))
        #expect(drain.networkChanged(available: true, now: Self.now.addingTimeInterval(3)) == .wait(until: Self.now.addingTimeInterval(6)))
        _ = drain.networkChanged(available: false, now: Self.now.addingTimeInterval(4))
        #expect(drain.retryDue() == .none, "gone again by the end of the wait")
        #expect(drain.networkChanged(available: true, now: Self.now.addingTimeInterval(7)) == Self.run, "past the backoff: at once")
        #expect(drain.finished(failed: false, now: Self.now.addingTimeInterval(7)) == .none)
        #expect(drain.failures == 0 && drain.notBefore == nil)
    }

    @Test("Offline captures leave when the signal says the network returned, with no call of the app's; a failed run backs off")
    func hostDrainsOnReturn() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let signal = FakeConnectivity()
        let renderer = ScriptedRenderer()
        let host = try JourneyHost(
            configuration: fixture.configuration(), cache: fixture.cache, renderer: renderer, storage: fixture.root + "/host",
            transport: fixture.origin, clock: fixture.clock, captureSink: fixture.sink, coordinator: fixture.coordinator, connectivity: signal)
        let session = try await host.present()
        signal.send(false)
        fixture.sink.failing = true
        renderer.post(.capture(event: "answer-1", body: Array("a".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().count) == 2 })

        // Back, but the endpoint still fails: a failed run, then a backoff.
        signal.send(true)
        #expect(await eventually(within: .seconds(10)) { fixture.sink.calls == 1 })
        #expect(
            await eventually(within: .seconds(10)) {
                let drain = await host.drainState()
                return drain.failures == 1 && !drain.running
            })
        signal.send(false)
        fixture.sink.failing = false
        signal.send(true)
        #expect(await eventually { await host.drainState().waiting }, "a return during the backoff waits for its end")
        for _ in 0..<200 { await Task.yield() }
        #expect(fixture.sink.accepted.isEmpty)
        fixture.clock.advance(by: .seconds(2))
        #expect(await eventually(within: .seconds(10)) { fixture.sink.accepted.count == 2 })
        #expect(fixture.sink.accepted.map(\.id) == [session.id + "/presented", "answer-1"])
        #expect(await host.presentationState == .presented(session), "still presented: no dismissal needed")
        await host.dispose()
    }
}

/// A connectivity signal a test drives.
final class FakeConnectivity: ConnectivitySignal {
    private let subscribers = Locked<[AsyncStream<Bool>.Continuation]>([])

    func updates() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        subscribers.withLock { $0.append(continuation) }
        continuation.yield(true)
        return stream
    }

    func send(_ available: Bool) {
        for continuation in subscribers.withLock({ $0 }) { continuation.yield(available) }
    }
}

/// GIO's network monitor for real (``GIOConnectivity``): it reports a value, and the
/// `network-changed` signal GIO emits reaches every subscriber in order.
@Suite("GIO connectivity")
struct GIOConnectivityTests {
    @Test("The monitor reports whether the network is reachable, then each network-changed signal")
    func reportsAndFollows() async throws {
        let monitor = GIOConnectivity.shared
        var updates = monitor.updates().makeAsyncIterator()
        let first = await updates.next()
        #expect(first != nil)
        #expect(monitor.current == first)
        for value in [false, true, false, true] {
            monitor.emitForTesting(available: value)
            #expect(await updates.next() == value)
        }
        var second = monitor.updates().makeAsyncIterator()
        #expect(await second.next() == true, "a new subscriber hears the current value")
    }
}
