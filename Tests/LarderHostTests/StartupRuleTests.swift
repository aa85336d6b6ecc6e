import Foundation
import LarderHost
import LarderTestSupport
import Testing

/// `JourneyConfiguration.startup` (issue 21 item 12): after a restart the host asks the origin
/// first (seed 000, the default), shows the cache at once and revalidates behind it (seeds
/// 002, 004), or shows nothing downloaded without fresh authorisation (seed 000's strict
/// reading).
@Suite("Startup rules")
struct StartupRuleTests {
    /// A fixture whose origin served revision 1 to a host of an earlier launch.
    func launchedBefore() async throws -> HostFixture {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        await host.dispose()
        fixture.clock.advance(by: .seconds(60))
        return fixture
    }

    func launch(_ fixture: HostFixture, _ startup: StartupPolicy, embedded: String? = nil) throws -> JourneyHost {
        var configuration = fixture.configuration(embedded: embedded)
        configuration.startup = startup
        return try fixture.host(configuration: configuration)
    }

    @Test("Ask the origin first (default): a hanging origin holds the preparation up to the deadline, then the cache serves stale")
    func askOriginFirst() async throws {
        let fixture = try await launchedBefore()
        fixture.origin.behaviour = .hang
        let host = try launch(fixture, .askOriginFirst)
        let preparing = Task { try await host.prepare() }
        #expect(await eventually { fixture.origin.hangingCount == 1 })
        fixture.clock.advance(by: .seconds(5))
        let prepared = try await preparing.value
        #expect(prepared.stale && prepared.source == .cache)
        fixture.origin.behaviour = .offline
        fixture.origin.release()
    }

    @Test("Cache first: the cached revision at once, revalidated behind it, the new one for the next presentation")
    func cacheFirst() async throws {
        let fixture = try await launchedBefore()
        try fixture.publish("paywall")
        fixture.clock.advance(by: .seconds(3 * 3600))  // any age: shown at once
        fixture.origin.behaviour = .hang
        let host = try launch(fixture, .cacheFirst)

        let prepared = try await host.prepare()  // the origin hangs: this did not wait for it
        #expect(prepared.revision == 1 && prepared.source == .cache && prepared.stale == false)
        #expect(await host.timeline().contains { $0.kind == .fresh && $0.detail.hasPrefix("cache first:") })
        let session = try await host.present()
        #expect(session.revision == 1)
        #expect(await eventually { fixture.origin.hangingCount == 1 })  // revalidating behind it

        fixture.origin.behaviour = .serve
        fixture.origin.release()
        #expect(await eventually { await host.timeline().contains { $0.kind == .staged } })
        #expect(await host.presentationState == .presented(session))  // never swapped underneath
        await host.dismiss()
        #expect(try await host.present().revision == 2)
    }

    @Test("Cache first, offline: the cache serves every presentation; the first answer authorises as usual")
    func cacheFirstOffline() async throws {
        let fixture = try await launchedBefore()
        fixture.origin.behaviour = .offline
        let host = try launch(fixture, .cacheFirst)
        #expect(try await host.prepare().revision == 1)
        // The revalidation behind it failed: a backoff, and the cache still served.
        #expect(await eventually { (try? await host.status().failures) == 1 })
        #expect(try await host.prepare().revision == 1)
        fixture.origin.behaviour = .serve
        // The explicit retry (the failed revalidation may still be finishing: asked again).
        #expect(await eventually(turns: 200) { await host.refresh(force: true) == nil })
        #expect(try await host.status().renewed == fixture.clock.now)
        let asked = fixture.origin.journeyRequestCount
        #expect(try await host.prepare().revision == 1)  // fresh now: the window decides
        #expect(fixture.origin.journeyRequestCount == asked)
    }

    @Test("Require authorisation: offline after a restart nothing downloaded is shown; the embedded default is")
    func requireAuthorisation() async throws {
        let fixture = try await launchedBefore()
        fixture.origin.behaviour = .offline
        let host = try launch(fixture, .requireAuthorisation)
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("require-authorisation") == true)
        #expect(await host.resolveFlowIfAvailable() == nil)
        let presentError = await #expect(throws: HostError.self) { try await host.present() }
        #expect(presentError?.code == .backingOff || presentError?.code == .unavailable)
        #expect(await host.presentationState == .hidden)
        await host.dispose()

        let embedded = try launch(fixture, .requireAuthorisation, embedded: try fixture.archive("legacy-prompt"))
        let flow = try await embedded.resolveFlow()
        #expect(flow.source == .embedded && flow.revision == 0)
    }

    @Test("Require authorisation: once authorised in this launch, the stale cache serves as usual")
    func requireAuthorisationAfterAnswer() async throws {
        let fixture = try await launchedBefore()
        let host = try launch(fixture, .requireAuthorisation)
        #expect(try await host.prepare().source == .revalidated)
        fixture.origin.behaviour = .offline
        fixture.clock.advance(by: .seconds(31 * 60))
        let prepared = try await host.prepare()
        #expect(prepared.stale && prepared.revision == 1)
        #expect(try await host.present().revision == 1)
    }
}
