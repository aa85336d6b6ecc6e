import Foundation
import LarderHost
import Testing

/// A journey removed on the origin (a confirmed 404): seed 000 discards the content, seed 002
/// keeps rendering it; `JourneyConfiguration.removedJourney` chooses, and status records what
/// happened and when either way.
@Suite("Removed journey rules")
struct RemovedJourneyRuleTests {
    /// Prepares, removes the journey on the origin, and lets the host see the two 404s that
    /// confirm it; returns the host and the time of the confirming 404.
    private func removed(_ fixture: HostFixture, policy: RemovedJourneyPolicy) async throws -> (JourneyHost, Date, Result<PreparedJourney, HostError>) {
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.removedJourney = policy
        let host = try fixture.host(configuration: configuration)
        try await host.prepare()
        try fixture.unpublish()
        fixture.clock.advance(by: .seconds(31 * 60))
        // The first 404 is not confirmation: the cached content is still served.
        let first = try await host.prepare()
        #expect(first.source == .cache && first.removed == false)
        fixture.clock.advance(by: .seconds(31))  // past the backoff
        let confirmed = fixture.clock.now
        do { return (host, confirmed, .success(try await host.prepare())) } catch { return (host, confirmed, .failure(error)) }
    }

    @Test("discard (the default): the content goes, and status says a confirmed 404 removed it and when")
    func discard() async throws {
        let fixture = try HostFixture()
        #expect(fixture.configuration().removedJourney == .discard)
        let (host, confirmed, outcome) = try await removed(fixture, policy: .discard)
        guard case .failure(let error) = outcome else { Issue.record("served after removal: \(outcome)"); return }
        #expect(error.code == .denied && error.status == 404)
        let status = try await host.status()
        #expect(status.revision == nil && status.cached == false)
        #expect(status.denial == JourneyDenial(status: 404, time: confirmed, contentKept: false))
    }

    @Test("keepServing: the cached revision stays in service, flagged removed, until the origin serves it again")
    func keepServing() async throws {
        let fixture = try HostFixture()
        let (host, confirmed, outcome) = try await removed(fixture, policy: .keepServing)
        let kept = try outcome.get()
        #expect(kept.revision == 1 && kept.removed && kept.stale && kept.source == .cache)
        var status = try await host.status()
        #expect(status.revision == 1 && status.cached)
        #expect(status.denial == JourneyDenial(status: 404, time: confirmed, contentKept: true))
        // Presenting it works; the date of the removal stays that of the confirming 404.
        fixture.clock.advance(by: .seconds(120))
        let session = try await host.present()
        #expect(session.revision == 1)
        await host.dismiss()
        #expect(try await host.status().denial?.time == confirmed)

        // Published again: the flag and the record of the removal go.
        try fixture.publish("onboarding")
        fixture.clock.advance(by: .seconds(3600))
        let back = try await host.prepare()
        #expect(back.removed == false && back.stale == false)
        status = try await host.status()
        #expect(status.denial == nil)
    }

    @Test("keepServing during a presentation: the open session stays; the prepared content is flagged after dismissal")
    func keepServingWhilePresented() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.removedJourney = .keepServing
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer, configuration: configuration)
        let session = try await host.present()
        try fixture.unpublish()
        // Explicit refreshes, inside the refresh interval so no scheduled one runs meanwhile.
        fixture.clock.advance(by: .seconds(60))
        await host.refresh()
        fixture.clock.advance(by: .seconds(31))
        await host.refresh()
        #expect(await host.presentationState == .presented(session))
        await host.dismiss()
        guard case .ready(let journey) = await host.readiness else { Issue.record("not ready after dismissal"); return }
        #expect(journey.removed && journey.revision == 1)
    }
}
