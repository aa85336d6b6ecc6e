import Foundation
import LarderHost
import Testing

/// DESIGN.md Host: a definitive 401, 403 or confirmed 404 discards prepared content for the
/// scope, stops any active interaction, and the next attempt authorises afresh; denied
/// content is never reused. Cached content stays usable offline until a denial arrives.
@Suite("Denial rules")
struct DenialRuleTests {
    @Test("A 401 or 403 discards prepared content; the next attempt authorises afresh", arguments: [401, 403])
    func denialDiscards(_ status: Int) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        fixture.origin.behaviour = .status(status, [:])
        fixture.clock.advance(by: .seconds(31 * 60))
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .denied)
        #expect(error?.status == status)
        #expect(await host.readiness == .denied(status: status))
        #expect(try await host.status().revision == nil)
        // Denied content is never reused, not even offline.
        fixture.origin.behaviour = .offline
        fixture.clock.advance(by: .seconds(3600))
        await #expect(throws: HostError.self) { try await host.prepare() }

        fixture.origin.behaviour = .serve
        fixture.clock.advance(by: .seconds(3600))
        let journey = try await host.prepare()
        #expect(journey.source == .network)
        // Afresh: no validator from the discarded document.
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] == nil)
    }

    @Test("A denial during a presentation stops it", arguments: [401, 403])
    func denialStopsPresentation(_ status: Int) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.present()
        fixture.origin.behaviour = .status(status, [:])
        fixture.clock.advance(by: .seconds(10 * 60))
        await host.refresh()
        #expect(await host.presentationState == .hidden)
        #expect(renderer.record.loaded == false)
        #expect(await host.readiness == .denied(status: status))
    }

    @Test("A 404 is confirmed by a second one: the first keeps the cached content")
    func notFoundNeedsConfirmation() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        fixture.origin.behaviour = .status(404, [:])
        fixture.clock.advance(by: .seconds(31 * 60))
        #expect(try await host.prepare().source == .cache)
        fixture.clock.advance(by: .seconds(31))  // past the backoff
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .denied)
        #expect(error?.status == 404)
    }

    @Test("Cached content stays usable offline until a denial arrives")
    func offlineUntilDenied() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        fixture.origin.behaviour = .offline
        for _ in 0..<3 {
            fixture.clock.advance(by: .seconds(2 * 3600))
            #expect(try await host.prepare().source == .cache)
        }
        fixture.origin.behaviour = .status(401, [:])
        fixture.clock.advance(by: .seconds(2 * 3600))
        await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(try await host.status().cached == false)
    }
}
