import Foundation
import LarderCache
@testable import LarderHost
import LarderTestSupport
import Testing

/// What concerns the whole app reaches every host of a ``PresentationCoordinator`` (by default
/// every host of the process) [seed 001: "When the user logs out (reset()), all experience
/// caches are cleared"; seed 000: "This prevents a Journey prepared for one person from being
/// shown to another", "Memory warnings unload hidden renderer content while preserving an
/// active Journey"]: a logout of everything, the app's foreground and a memory warning.
@Suite("Every host of the process")
struct EveryHostTests {
    /// A host of the fixture's coordinator on a state folder of its own.
    func host(_ fixture: HostFixture, journey: String, storage: String, renderer: ScriptedRenderer, embedded: String? = nil) throws -> JourneyHost {
        try JourneyHost(
            configuration: fixture.configuration(journey: journey, identity: "usr_1", embedded: embedded), cache: fixture.cache, renderer: renderer,
            storage: fixture.root + "/" + storage, transport: fixture.origin, clock: fixture.clock, captureSink: fixture.sink,
            coordinator: fixture.coordinator, connectivity: nil)
    }

    @Test("A logout of everything ends the other hosts' presentations, drops what they prepared, verified and were authorised for")
    func logoutReachesEveryHost() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", journey: "onboarding")
        try fixture.publish("paywall", journey: "paywall")
        let onboardingRenderer = ScriptedRenderer()
        let paywallRenderer = ScriptedRenderer()
        let onboarding = try host(fixture, journey: "onboarding", storage: "onboarding-host", renderer: onboardingRenderer)
        let paywall = try host(fixture, journey: "paywall", storage: "paywall-host", renderer: paywallRenderer)
        try await onboarding.prepare()
        let shown = try await paywall.present()

        try await onboarding.logout(.everything)

        #expect(await paywall.presentationState == .hidden)
        if await paywall.presentationState == .hidden {  // (else the wait below would never end)
            #expect(await paywall.waitForCompletion()?.session == shown)
        }
        #expect(await paywall.readiness == .idle)
        #expect(paywallRenderer.record.loaded == false, "the renderer holds nothing of the first person")
        let status = try await paywall.status()
        #expect(status.revision == nil && status.authorisedSinceStart == false && status.cached == false)
        // Offline, nothing of the first person is shown: no embedded default, so it throws.
        fixture.origin.behaviour = .offline
        await #expect(throws: HostError.self) { try await paywall.present() }
        #expect(await paywall.presentationState == .hidden)
        await #expect(throws: HostError.self) { try await onboarding.prepare() }
        await onboarding.dispose()
        await paywall.dispose()
    }

    @Test("After a logout of everything, a host with an embedded default shows it offline, and online asks the origin afresh")
    func embeddedAfterLogout() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", journey: "onboarding")
        let paywallDocument = try fixture.publish("paywall", journey: "paywall")
        let embedded = try fixture.archive("legacy-prompt")
        let onboarding = try host(fixture, journey: "onboarding", storage: "onboarding-host", renderer: ScriptedRenderer())
        let paywall = try host(fixture, journey: "paywall", storage: "paywall-host", renderer: ScriptedRenderer(), embedded: embedded)
        #expect(try await paywall.prepare().bundle == paywallDocument.bundle)

        try await onboarding.logout(.everything)
        fixture.origin.behaviour = .offline
        #expect(try await paywall.present().revision == 0, "the embedded default")
        await paywall.dismiss()
        fixture.origin.behaviour = .serve
        fixture.clock.advance(by: .seconds(60))
        let requests = fixture.origin.journeyRequests.count
        #expect(try await paywall.prepare(forceRefresh: true).source == .network)
        #expect(fixture.origin.journeyRequests.count == requests + 1)
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] == nil, "nothing of the old validator either")
        await onboarding.dispose()
        await paywall.dispose()
    }

    @Test("The coordinator's memory warning unloads every hidden renderer; its foreground signal gives every host the grace")
    func processWideSignals() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", journey: "onboarding")
        try fixture.publish("paywall", journey: "paywall")
        let renderers = [ScriptedRenderer(), ScriptedRenderer()]
        let hosts = [
            try host(fixture, journey: "onboarding", storage: "onboarding-host", renderer: renderers[0]),
            try host(fixture, journey: "paywall", storage: "paywall-host", renderer: renderers[1]),
        ]
        for host in hosts { try await host.prepare() }

        await fixture.coordinator.handleMemoryWarning()

        #expect(renderers.map(\.record.unloads) == [1, 1])
        for host in hosts {
            guard case .unloaded = await host.readiness else { Issue.record("not unloaded"); continue }
        }

        await fixture.coordinator.setForeground(false)
        await fixture.coordinator.setForeground(true)
        var presentations: [Task<PresentationSession, any Error>] = []
        for host in hosts {
            presentations.append(Task { try await host.present() })
            #expect(await eventually { await host.timeline().contains { $0.kind == .foregroundGrace } })
        }
        #expect(renderers.allSatisfy { $0.record.shown.isEmpty }, "both wait out the grace")
        fixture.clock.advance(by: .milliseconds(500))
        for presentation in presentations { _ = try await presentation.value }
        #expect(renderers.map(\.record.shown.count) == [1, 1])
        for host in hosts { await host.dispose() }
        #expect(fixture.coordinator.memberCount == 0, "disposed hosts leave the group")
    }
}
