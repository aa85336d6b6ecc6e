import Foundation
import LarderHost
import Testing

/// `refresh(force: true)`: a user's explicit action asks the origin whatever the backoff, still
/// with `If-None-Match`; a plain refresh waits the backoff out.
@Suite("Forced refresh rules")
struct ForceRefreshRuleTests {
    @Test("A forced refresh asks the origin during a backoff, with the validator, and renews freshness")
    func forceDuringBackoff() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        fixture.origin.behaviour = .status(503, ["Retry-After": "600"])
        fixture.clock.advance(by: .seconds(31 * 60))
        #expect(try await host.prepare().stale)
        #expect(try await host.status().failures == 1)
        fixture.origin.behaviour = .serve
        let asked = fixture.origin.journeyRequestCount

        await host.refresh()
        #expect(fixture.origin.journeyRequestCount == asked)  // the backoff holds

        await host.refresh(force: true)
        #expect(fixture.origin.journeyRequestCount == asked + 1)
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] != nil)
        let status = try await host.status()
        #expect(status.failures == 0 && status.nextAttempt == nil && status.renewed == fixture.clock.now)
        let journey = try await host.prepare()
        #expect(journey.stale == false && journey.source == .revalidated)
        #expect(await host.timeline().contains { $0.kind == .forced })
    }

    @Test("A forced refresh that fails sets the backoff as usual")
    func forcedFailureBacksOff() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        fixture.origin.behaviour = .offline
        await host.refresh(force: true)
        await host.refresh(force: true)
        let status = try await host.status()
        #expect(status.failures == 2)
        #expect(status.nextAttempt.map { $0 > fixture.clock.now } == true)
        // The host itself still waits: a present of the fresh content does not ask.
        let asked = fixture.origin.journeyRequestCount
        try await host.present()
        #expect(fixture.origin.journeyRequestCount == asked)
    }
}
