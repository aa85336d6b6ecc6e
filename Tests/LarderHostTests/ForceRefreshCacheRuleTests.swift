import Foundation
import LarderHost
import LarderTestSupport
import Testing

/// `prepare(forceRefresh: true)` and `resolveFlow(forceRefresh: true)` (seed 002: "forceRefresh:
/// true skips step 1"): fresh content is not served from the cache; the origin is asked, and
/// without a live answer the rest of the fallback chain serves it, saying why. A backoff still
/// holds (that is `refresh(force: true)`'s, and the CLI's `--force`).
@Suite("Force refresh rules: the cached render skipped")
struct ForceRefreshCacheRuleTests {
    @Test("Fresh prepared content is skipped: the origin is asked and a new revision prepared")
    func newRevision() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        #expect(try await host.prepare().revision == 1)
        try fixture.publish("paywall")
        fixture.clock.advance(by: .seconds(60))
        let asked = fixture.origin.journeyRequestCount

        #expect(try await host.prepare().revision == 1)  // fresh: from the cache, not asked
        #expect(fixture.origin.journeyRequestCount == asked)

        let forced = try await host.prepare(forceRefresh: true)
        #expect(fixture.origin.journeyRequestCount == asked + 1)
        #expect(forced.revision == 2 && forced.source == .network && forced.stale == false && forced.fallbackReason == nil)
        #expect(try await host.present().revision == 2)
        #expect(await host.timeline().contains { $0.kind == .forced && $0.detail.contains("cached render is skipped") })
    }

    @Test("The same revision is revalidated with the validator and renewed in place")
    func sameRevision() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        fixture.clock.advance(by: .seconds(60))
        let asked = fixture.origin.journeyRequestCount

        let forced = try await host.prepare(forceRefresh: true)
        #expect(fixture.origin.journeyRequestCount == asked + 1)
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] != nil)
        #expect(forced.source == .revalidated && forced.renewed == fixture.clock.now)
        #expect(renderer.record.loadedBundles.count == 1)  // the loaded renderer is kept

        let flow = try await host.resolveFlow(forceRefresh: true)
        #expect(fixture.origin.journeyRequestCount == asked + 2)
        #expect(flow.source == .revalidated && flow.fallbackReason == nil)
    }

    @Test("Without a live answer the stale cache serves it, with the reason; a backoff still holds")
    func offlineFallsBack() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        fixture.origin.behaviour = .offline
        fixture.clock.advance(by: .seconds(60))

        let forced = try await host.prepare(forceRefresh: true)
        #expect(forced.revision == 1 && forced.source == .cache && forced.stale)
        #expect(forced.fallbackReason?.contains("forced refresh") == true)
        #expect(try await host.status().failures == 1)

        // Backing off: not asked again, served from the rest of the chain, and told why.
        fixture.origin.behaviour = .serve
        let asked = fixture.origin.journeyRequestCount
        let flow = try await host.resolveFlow(forceRefresh: true)
        #expect(fixture.origin.journeyRequestCount == asked)
        #expect(flow.stale && flow.fallbackReason?.contains("the next attempt may be made") == true)
        // A plain resolution says nothing of the kind.
        fixture.clock.advance(by: .seconds(31))
        #expect(try await host.resolveFlow().fallbackReason == nil)
    }

    @Test("A refresh that confirms the revision served stale renews it whole: fresh again, and the fallback reason goes")
    func confirmedAfterTheFallback() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        fixture.origin.behaviour = .offline
        fixture.clock.advance(by: .seconds(60))
        let forced = try await host.prepare(forceRefresh: true)
        #expect(forced.stale && forced.fallbackReason?.contains("forced refresh") == true)

        fixture.origin.behaviour = .serve
        fixture.clock.advance(by: .seconds(31))  // past the backoff
        #expect(await host.refresh() == nil)

        let renewed = try await host.prepare()
        #expect(renewed.revision == forced.revision && renewed.source == .revalidated && !renewed.stale)
        #expect(renewed.fallbackReason == nil)
        #expect(await host.readiness == .ready(renewed))
        await host.dispose()
    }

    @Test("Nothing cached and no answer: the embedded default, with the reason")
    func embedded() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        fixture.origin.behaviour = .offline
        let host = try fixture.host(configuration: fixture.configuration(embedded: try fixture.archive("legacy-prompt")))
        let flow = try await host.resolveFlow(forceRefresh: true)
        #expect(flow.source == .embedded && flow.fallbackReason?.contains("forced refresh") == true)
    }

    @Test("While presented: the origin is asked, the new revision staged, what is shown returned")
    func whilePresented() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        let session = try await host.present()
        try fixture.publish("paywall")
        let asked = fixture.origin.journeyRequestCount

        let shown = try await host.prepare(forceRefresh: true)
        #expect(fixture.origin.journeyRequestCount == asked + 1)
        #expect(shown.revision == 1)
        #expect(await host.presentationState == .presented(session))
        #expect(await host.timeline().contains { $0.kind == .staged })
        await host.dismiss()
        #expect(try await host.present().revision == 2)
    }

    @Test("Concurrent forced and plain preparations: the forced one still asks the origin")
    func concurrent() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        try fixture.publish("paywall")
        await host.handleMemoryWarning()  // a plain prepare rebuilds from the cache
        let asked = fixture.origin.journeyRequestCount
        async let plain = host.prepare()
        async let forced = host.prepare(forceRefresh: true)
        let (a, b) = try await (plain, forced)
        #expect(b.revision == 2)
        #expect(a.revision == 1 || a.revision == 2)
        #expect(fixture.origin.journeyRequestCount == asked + 1)
    }
}
