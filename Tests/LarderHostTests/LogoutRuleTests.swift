import Foundation
import LarderCache
import LarderHost
import LarderTestSupport
import Testing

/// `logout()`: the scope's prepared content, record and bundles no other scope uses go; the
/// embedded default and captures already queued stay, delivered with their first identity.
@Suite("Logout rules")
struct LogoutRuleTests {
    @Test("Logout, then another identity: nothing of the first is served; its captures are delivered as the first")
    func logoutThenAnotherIdentity() async throws {
        let fixture = try HostFixture()
        let document = try fixture.publish("onboarding")
        let embedded = try fixture.archive("legacy-prompt")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer, configuration: fixture.configuration(identity: "usr_1", embedded: embedded))
        let session = try await host.present()
        renderer.post(.capture(event: "answer", body: Array("yes".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().count) == 2 })
        let embeddedDigest = try fixture.cache.importEmbeddedDefault(archiveAt: embedded).bundle

        try await host.logout()
        #expect(await host.readiness == .idle)
        #expect(await host.presentationState == .hidden)
        let status = try await host.status()
        #expect(status.revision == nil && status.failures == 0 && status.cached == false)
        #expect(try fixture.cache.bundle(document.bundle) == nil)
        #expect(try fixture.cache.bundle(embeddedDigest) != nil)
        #expect(try await host.pendingCaptures().count == 2)
        #expect(fixture.sink.accepted.isEmpty)

        // Offline, the second identity gets the embedded default: nothing of the first.
        fixture.origin.behaviour = .offline
        await host.updateConfiguration(fixture.configuration(identity: "usr_2", embedded: embedded))
        let offline = try await host.prepare()
        #expect(offline.source == .embedded)
        fixture.origin.behaviour = .serve
        fixture.clock.advance(by: .seconds(60))
        let online = try await host.prepare()
        #expect(online.source == .network)
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] == nil)

        await host.deliverCapturedEvents()
        let delivered = fixture.sink.accepted
        #expect(delivered.map(\.visitor) == ["usr_1", "usr_1"])
        #expect(delivered.allSatisfy { $0.session == session.id })
    }

    @Test("A bundle another scope holds stays in the cache")
    func sharedBundleStays() async throws {
        let fixture = try HostFixture()
        let document = try fixture.publish("onboarding")
        let first = try fixture.host(configuration: fixture.configuration(identity: "usr_1"))
        let second = try fixture.host(configuration: fixture.configuration(identity: "usr_2"))
        try await first.prepare()
        try await second.prepare()
        try await first.logout()
        #expect(try fixture.cache.bundle(document.bundle)?.complete == true)
        #expect(try await second.status().cached)
        try await second.logout()
        #expect(try fixture.cache.bundle(document.bundle) == nil)
    }

    @Test("Logout during a presentation ends it")
    func logoutEndsPresentation() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.present()
        try await host.logout()
        #expect(await host.presentationState == .hidden)
        #expect(renderer.record.loaded == false)
    }

    @Test("Logout of everything: every journey's state and bundles go, the embedded default, captures and rollback floors stay")
    func logoutOfEverything() async throws {
        let fixture = try HostFixture()
        let onboarding = try fixture.publish("onboarding", journey: "onboarding")
        let paywall = try fixture.publish("paywall", journey: "paywall")
        let embedded = try fixture.archive("legacy-prompt")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer, configuration: fixture.configuration(journey: "onboarding", embedded: embedded))
        let other = try fixture.host(configuration: fixture.configuration(journey: "paywall"))
        _ = try await host.present()
        renderer.post(.capture(event: "answer", body: Array("yes".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().count) == 2 })
        try await other.prepare()
        await other.dispose()
        let embeddedDigest = try fixture.cache.importEmbeddedDefault(archiveAt: embedded).bundle

        try await host.logout(.everything)

        #expect(await host.presentationState == .hidden)
        #expect(try await host.status().revision == nil)
        #expect(try fixture.cache.bundle(onboarding.bundle) == nil)
        #expect(try fixture.cache.bundle(paywall.bundle) == nil)
        #expect(try fixture.cache.bundle(embeddedDigest)?.complete == true)
        #expect(try await host.pendingCaptures().count == 2)
        // A later host of the other journey on the same storage has nothing authorised.
        fixture.origin.behaviour = .offline
        let later = try fixture.host(configuration: fixture.configuration(journey: "paywall"))
        let status = try await later.status()
        #expect(status.revision == nil && status.cached == false)
        await #expect(throws: HostError.self) { try await later.prepare() }
        await later.dispose()
        await host.dispose()
    }

    @Test("Logout of the journey only leaves the other journeys alone")
    func logoutOfOneJourney() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", journey: "onboarding")
        let paywall = try fixture.publish("paywall", journey: "paywall")
        let host = try fixture.host(configuration: fixture.configuration(journey: "onboarding"))
        let other = try fixture.host(configuration: fixture.configuration(journey: "paywall"))
        try await host.prepare()
        try await other.prepare()

        try await host.logout(.journey)

        #expect(try await other.status().revision == paywall.revision)
        #expect(try fixture.cache.bundle(paywall.bundle)?.complete == true)
        await host.dispose()
        await other.dispose()
    }
}
