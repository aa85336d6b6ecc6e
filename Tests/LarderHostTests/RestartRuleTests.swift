import Foundation
import LarderTestSupport
import LarderHost
import Testing

/// DESIGN.md Host: after a restart, a new presentation needs fresh authorisation; delivery of
/// queued answers does not. Offline after a restart, the cache still serves (the fallback
/// chain), since no denial arrived.
@Suite("Restart rules")
struct RestartRuleTests {
    @Test("After a restart a new presentation asks the origin, even for young content")
    func restartNeedsAuthorisation() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        do {
            let host = try fixture.host()
            try await host.prepare()
            await host.dispose()
        }
        fixture.clock.advance(by: .seconds(60))
        let restarted = try fixture.host()
        let session = try await restarted.present()
        #expect(fixture.origin.journeyRequestCount == 2)
        #expect(session.revision == 1)
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] != nil)
    }

    @Test("Offline after a restart, the cached revision is served stale")
    func offlineAfterRestart() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        do {
            let host = try fixture.host()
            try await host.prepare()
            await host.dispose()
        }
        fixture.origin.behaviour = .offline
        let renderer = ScriptedRenderer()
        let restarted = try fixture.host(renderer)
        let flow = try await restarted.resolveFlow()
        #expect(flow.source == .cache)
        #expect(flow.stale)
        #expect(try await restarted.status().freshness == .requiresFetch)
        let prepared = try await restarted.prepare()
        #expect(prepared.stale)
        #expect(try await restarted.present().revision == 1)
        // Within the backoff, presenting the stale content asks nobody and reuses the renderer
        // already loaded with it.
        #expect(fixture.origin.journeyRequestCount == 2)
        #expect(renderer.record.loads == [false])
    }

    @Test("Queued answers are delivered after a restart without asking the origin")
    func deliveryNeedsNoAuthorisation() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        fixture.sink.failing = true
        do {
            let renderer = ScriptedRenderer()
            let host = try fixture.host(renderer)
            try await host.present()
            renderer.post(.capture(event: "answer-1", body: Array(#"{"goal":"sleep"}"#.utf8)))
            #expect(await eventually { (try? await host.pendingCaptures().count) == 2 })
            await host.dismiss()
            await host.dispose()
        }
        fixture.sink.failing = false
        fixture.origin.behaviour = .offline
        let restarted = try fixture.host()
        let delivery = await restarted.deliverCapturedEvents()
        #expect(delivery.delivered == 2)
        #expect(fixture.sink.accepted.map(\.id).last == "answer-1")
        #expect(fixture.origin.journeyRequestCount == 1)
    }
}
