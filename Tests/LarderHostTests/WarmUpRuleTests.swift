import Foundation
import LarderCache
import LarderHost
import LarderTestSupport
import Testing

/// Warm-up (`prefetch(journeys:)`) and download progress (`progressUpdates()`).
@Suite("Warm-up and progress rules")
struct WarmUpRuleTests {
    /// Collects progress values until one reaches 1 (bounded by a watchdog).
    func collect(_ stream: AsyncStream<Double>) -> Task<[Double]?, Never> {
        Task {
            await value(within: .seconds(60)) {
                var values: [Double] = []
                for await fraction in stream {
                    values.append(fraction)
                    if fraction >= 1 { break }
                }
                return values
            }
        }
    }

    @Test("A preparation's progress rises from 0 to 1 and ends at 1")
    func preparationProgress() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        let values = collect(await host.progressUpdates())
        try await host.prepare()
        let seen = try #require(await values.value)
        #expect(seen.first == 0)
        #expect(seen.last == 1)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "\(seen)")
        #expect(seen.count > 2, "the download reported its own fractions: \(seen)")
    }

    @Test("Several journeys warm up in one call, each ready in the cache; then prepare asks nothing")
    func prefetchSeveral() async throws {
        let fixture = try HostFixture()
        let documents = [
            try fixture.publish("onboarding", journey: "onboarding"), try fixture.publish("paywall", journey: "paywall"),
            try fixture.publish("legacy-prompt", journey: "legacy"),
        ]
        let host = try fixture.host()
        let values = collect(await host.progressUpdates())
        let results = try await host.prefetch(journeys: ["onboarding", "paywall", "legacy", "paywall"])
        #expect(results.map(\.journey) == ["onboarding", "paywall", "legacy"])
        #expect(results.allSatisfy { $0.error == nil && $0.flow?.source == .network })
        #expect(results.map { $0.flow?.bundle } == documents.map(\.bundle))
        for document in documents { #expect(try fixture.cache.bundle(document.bundle)?.complete == true) }
        let seen = try #require(await values.value)
        #expect(seen.first == 0 && seen.last == 1)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "\(seen)")
        #expect(seen.contains { abs($0 - 1.0 / 3) < 1e-9 } && seen.contains { abs($0 - 2.0 / 3) < 1e-9 }, "\(seen)")

        // The current journey is fresh: preparing it asks nothing more; a second warm-up neither.
        let asked = fixture.origin.journeyRequestCount
        #expect(try await host.prepare().source == .cache)
        let again = try await host.prefetch(journeys: ["onboarding", "paywall"])
        #expect(again.allSatisfy { $0.flow?.source == .cache && $0.error == nil })
        #expect(fixture.origin.journeyRequestCount == asked)
    }

    @Test("A warm-up keeps the backoff rules: a failure backs each journey off, and the next warm-up does not ask")
    func prefetchBacksOff() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", journey: "onboarding")
        try fixture.publish("paywall", journey: "paywall")
        let host = try fixture.host()
        fixture.origin.behaviour = .offline
        let failed = try await host.prefetch(journeys: ["onboarding", "paywall"])
        #expect(failed.allSatisfy { $0.flow == nil && $0.error?.code == .unavailable })
        let asked = fixture.origin.journeyRequestCount
        #expect(asked == 2)
        fixture.origin.behaviour = .serve
        let waiting = try await host.prefetch(journeys: ["onboarding", "paywall"])
        #expect(waiting.allSatisfy { $0.error?.code == .backingOff })
        #expect(fixture.origin.journeyRequestCount == asked)
        fixture.clock.advance(by: .seconds(31))
        let warmed = try await host.prefetch(journeys: ["onboarding", "paywall"])
        #expect(warmed.allSatisfy { $0.error == nil && $0.flow?.source == .network })
    }

    @Test("A denial during a warm-up discards only that journey's content")
    func prefetchDenied() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", journey: "onboarding")
        let host = try fixture.host()
        try await host.prepare()
        let results = try await host.prefetch(journeys: ["unknown"])
        #expect(results.first?.error?.code == .unavailable)  // a first 404 is not confirmation
        fixture.clock.advance(by: .seconds(31))
        let confirmed = try await host.prefetch(journeys: ["unknown"])
        #expect(confirmed.first?.error?.code == .denied && confirmed.first?.error?.status == 404)
        if case .ready = await host.readiness {} else { Issue.record("the current journey's preparation was touched") }
    }
}
