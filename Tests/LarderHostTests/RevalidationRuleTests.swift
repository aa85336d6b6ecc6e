import Foundation
import LarderTestSupport
import LarderHost
import Testing

/// DESIGN.md Host: only a 200, or a 304 answering our own validator for the same scope, renews
/// freshness; failures never renew it and never start a retry loop; Retry-After is honoured in
/// both forms; backoff survives a restart; concurrent requests for one scope coalesce.
@Suite("Revalidation and failure rules")
struct RevalidationRuleTests {
    @Test("A 304 answering our validator renews freshness and reports revalidated")
    func notModifiedRenews() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        await host.setForeground(false)
        try await host.prepare()
        fixture.clock.advance(by: .seconds(31 * 60))
        let journey = try await host.prepare()
        #expect(journey.source == .revalidated)
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] != nil)
        // Renewed: 5 minutes later it is fresh again, no request.
        fixture.clock.advance(by: .seconds(5 * 60))
        try await host.prepare()
        #expect(fixture.origin.journeyRequestCount == 2)
    }

    @Test("A 304 we did not ask for (no validator sent) renews nothing")
    func unsolicitedNotModified() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        fixture.origin.behaviour = .status(304, [:])
        let host = try fixture.host()
        await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(try await host.status().renewed == nil)
    }

    struct Failure: Sendable, CustomTestStringConvertible {
        var name: String
        var behaviour: FakeOrigin.Behaviour
        var testDescription: String { name }
    }

    @Test(
        "Failures never renew freshness and never start a retry loop",
        arguments: [
            Failure(name: "503", behaviour: .status(503, [:])),
            Failure(name: "500", behaviour: .status(500, [:])),
            Failure(name: "429", behaviour: .status(429, [:])),
            Failure(name: "offline", behaviour: .offline),
        ])
    func failuresDoNotRenew(_ failure: Failure) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        let renewed = try await host.status().renewed
        fixture.origin.behaviour = failure.behaviour
        fixture.clock.advance(by: .seconds(31 * 60))
        let journey = try await host.prepare()
        #expect(journey.source == .cache)
        #expect(journey.stale)
        #expect(fixture.origin.journeyRequestCount == 2)
        #expect(try await host.status().renewed == renewed)
        #expect(try await host.status().failures == 1)
        // No retry loop: hours pass and nothing asks the origin by itself.
        for _ in 0..<6 {
            fixture.clock.advance(by: .seconds(3600))
            for _ in 0..<50 { await Task.yield() }
        }
        #expect(fixture.origin.journeyRequestCount == 2)
    }

    struct RetryAfterCase: Sendable, CustomTestStringConvertible {
        var name: String
        var header: @Sendable (Date) -> String
        var testDescription: String { name }
    }

    @Test(
        "Retry-After is honoured in both forms: no request before it, one after",
        arguments: [
            RetryAfterCase(name: "delay seconds", header: { _ in "120" }),
            RetryAfterCase(name: "HTTP-date", header: { now in Self.httpDate(now.addingTimeInterval(120)) }),
        ])
    func retryAfter(_ rule: RetryAfterCase) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        fixture.origin.behaviour = .status(503, ["retry-after": rule.header(fixture.clock.now)])
        let host = try fixture.host()
        await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(fixture.origin.journeyRequestCount == 1)

        fixture.origin.behaviour = .serve
        fixture.clock.advance(by: .seconds(60))
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .backingOff)
        #expect(fixture.origin.journeyRequestCount == 1)

        fixture.clock.advance(by: .seconds(61))
        #expect(try await host.prepare().source == .network)
        #expect(fixture.origin.journeyRequestCount == 2)
    }

    @Test("Backoff state survives a restart")
    func backoffSurvivesRestart() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        fixture.origin.behaviour = .status(503, ["retry-after": "600"])
        do {
            let host = try fixture.host()
            await #expect(throws: HostError.self) { try await host.prepare() }
            await host.dispose()
        }
        fixture.origin.behaviour = .serve
        let restarted = try fixture.host()
        let error = await #expect(throws: HostError.self) { try await restarted.prepare() }
        #expect(error?.code == .backingOff)
        #expect(fixture.origin.journeyRequestCount == 1)
        #expect(try await restarted.status().nextAttempt != nil)
    }

    @Test("Concurrent requests for one scope coalesce into one")
    func coalescing() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        fixture.origin.behaviour = .hang
        let host = try fixture.host()
        async let first = host.prepare()
        async let second = host.prepare()
        async let flow = host.resolveFlow()
        #expect(await eventually { fixture.origin.hangingCount == 1 })
        fixture.origin.behaviour = .serve
        fixture.origin.release()
        let (a, b, c) = try await (first, second, flow)
        #expect(a == b)
        #expect(c.bundle == a.bundle)
        #expect(fixture.origin.journeyRequestCount == 1)
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
