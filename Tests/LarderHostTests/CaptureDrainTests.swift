import Foundation
import LarderTestSupport
import Testing
@testable import LarderHost

/// ``CaptureDrain`` as a table, then the host around it (seed 002: "Analytics queue up on the
/// device and drain when the connection returns"): queued captures are delivered after the
/// next successful answer that follows a failure and on returning to the foreground, in order,
/// bounded per run, without waiting for a dismissal.
@Suite("Capture drain")
struct CaptureDrainTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var lastFailed = false
        var running = false
        var trigger: CaptureDrain.Trigger
        var expected: CaptureDrain.Action
        var testDescription: String { name }
    }

    static let run = CaptureDrain.Action.deliver(maxBatches: CaptureDrain.batchesPerRun)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Which triggers start a run", arguments: [
        Row(name: "dismissal", trigger: .dismissed, expected: run),
        Row(name: "back in the foreground", trigger: .foregrounded, expected: run),
        Row(name: "an answer after a failed request", trigger: .originAnswered(afterFailure: true), expected: run),
        Row(name: "an answer, nothing failed", trigger: .originAnswered(afterFailure: false), expected: .none),
        Row(name: "an answer after a failed delivery", lastFailed: true, trigger: .originAnswered(afterFailure: false), expected: run),
        Row(name: "during a run: once more after it", running: true, trigger: .foregrounded, expected: .none),
    ])
    func trigger(_ row: Row) {
        var drain = CaptureDrain()
        if row.lastFailed {
            _ = drain.trigger(.dismissed)
            _ = drain.finished(failed: true, now: Self.now)
        }
        if row.running { _ = drain.trigger(.dismissed) }
        #expect(drain.trigger(row.trigger) == row.expected)
        #expect(drain.running == (row.expected != .none || row.running))
    }

    @Test("A trigger during a run asks for one more run, unless the run failed", arguments: [false, true])
    func again(_ failed: Bool) {
        var drain = CaptureDrain()
        #expect(drain.trigger(.dismissed) == Self.run)
        #expect(drain.trigger(.foregrounded) == .none)
        #expect(drain.trigger(.foregrounded) == .none)
        #expect(drain.finished(failed: failed, now: Self.now) == (failed ? .none : Self.run))
        if !failed { #expect(drain.finished(failed: false, now: Self.now) == .none) }
        #expect(drain.running == false && drain.lastFailed == failed)
    }

    @Test("Offline, then the connection returns during a presentation: delivered in order, still presented")
    func connectionReturns() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        fixture.origin.behaviour = .offline
        fixture.sink.failing = true
        fixture.clock.advance(by: .seconds(31 * 60))
        let session = try await host.present()  // stale: the request failed
        renderer.post(.capture(event: "answer-1", body: Array("a".utf8)))
        renderer.post(.capture(event: "answer-2", body: Array("b".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().count) == 3 })
        #expect(fixture.sink.accepted.isEmpty)

        fixture.origin.behaviour = .serve
        fixture.sink.failing = false
        fixture.clock.advance(by: .seconds(31))  // past the backoff
        #expect(await host.refresh() == nil)
        #expect(await eventually(within: .seconds(10)) { fixture.sink.accepted.count == 3 })
        #expect(fixture.sink.accepted.map(\.id) == [session.id + "/presented", "answer-1", "answer-2"])
        #expect(await host.presentationState == .presented(session))
    }

    @Test("Back in the foreground, queued captures go without a dismissal; a run is bounded")
    func foregroundBounded() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.capture?.batchSize = 1
        let host = try fixture.host(configuration: configuration)
        try await host.prepare()
        var ids: [String] = []
        for index in 0..<(CaptureDrain.batchesPerRun + 2) { ids.append(try #require(try await host.track("event_\(index)"))) }
        await host.setForeground(false)
        #expect(fixture.sink.accepted.isEmpty)

        await host.setForeground(true)
        #expect(await eventually(within: .seconds(10)) { fixture.sink.accepted.count == CaptureDrain.batchesPerRun })
        #expect(await eventually(within: .seconds(10)) { (try? await host.pendingCaptures().count) == 2 })
        #expect(fixture.sink.accepted.count == CaptureDrain.batchesPerRun)
        await host.setForeground(false)
        await host.setForeground(true)
        #expect(await eventually(within: .seconds(10)) { fixture.sink.accepted.count == ids.count })
        #expect(fixture.sink.accepted.map(\.id) == ids)
    }
}
