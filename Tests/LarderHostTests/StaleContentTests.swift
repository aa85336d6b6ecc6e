import Foundation
import LarderHost
import LarderSystem
import LarderTestSupport
import Testing

/// How old content may serve a new presentation without a successful fetch
/// (``StaleContentPolicy``). By default the last good version at any age [seed 002: "A user with
/// no signal sees the last known-good version"; seed 004: "stale cache, bundled default"]:
/// StartupRuleTests' `requireAuthorisationAfterAnswer` keeps asserting it. Strict [seed 000:
/// "Content older than 30 minutes requires a successful fetch before a new presentation"]:
/// past 30 minutes, the embedded default or the live link's error.
@Suite("Stale content")
struct StaleContentTests {
    func strictHost(_ fixture: HostFixture, startup: StartupPolicy = .askOriginFirst, embedded: String? = nil) throws -> JourneyHost {
        var configuration = fixture.configuration(embedded: embedded)
        configuration.staleContent = .strict
        configuration.startup = startup
        return try fixture.host(configuration: configuration)
    }

    @Test("Strict, offline 31 minutes after the origin answered: no new presentation; at 29 minutes the cache still serves", arguments: StartupPolicy.allCases)
    func strictOffline(_ startup: StartupPolicy) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try strictHost(fixture, startup: startup)
        try await host.prepare()
        fixture.origin.behaviour = .offline
        fixture.clock.advance(by: .seconds(29 * 60))
        let session = try await host.present()
        #expect(session.revision == 1)
        await host.dismiss()

        fixture.clock.advance(by: .seconds(2 * 60))
        let error = await #expect(throws: HostError.self) { try await host.present() }
        #expect(error?.code == .unavailable || error?.code == .backingOff)
        #expect(await host.presentationState == .hidden)
        fixture.clock.advance(by: .seconds(60))  // past the backoff: the origin is asked, and fails
        let asked = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(asked?.message.contains("older than the stale-content policy allows") == true, "\(String(describing: asked))")
        #expect(await host.timeline().contains { $0.detail.contains("past the maximum age") })
        await host.dispose()
    }

    @Test("Strict, offline past 30 minutes with an embedded default: the embedded default, never the old revision")
    func strictFallsBackToTheEmbeddedDefault() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try strictHost(fixture, embedded: try fixture.archive("legacy-prompt"))
        try await host.prepare()
        fixture.origin.behaviour = .offline
        fixture.clock.advance(by: .seconds(31 * 60))
        let prepared = try await host.prepare()
        #expect(prepared.source == .embedded && prepared.revision == 0)
        await host.dispose()
    }

    @Test("Strict, after a restart: content authorised 31 minutes ago is not shown offline; by default it is, stale")
    func strictAfterARestart() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let first = try fixture.host()
        try await first.prepare()
        await first.dispose()
        fixture.origin.behaviour = .offline
        fixture.clock.advance(by: .seconds(31 * 60))

        let lax = try fixture.host()
        let served = try await lax.prepare()
        #expect(served.stale && served.revision == 1)
        await lax.dispose()
        fixture.clock.advance(by: .seconds(60))  // past the backoff the lax host set
        for startup in [StartupPolicy.askOriginFirst, .cacheFirst] {
            let strict = try strictHost(fixture, startup: startup)
            await #expect(throws: HostError.self, "\(startup)") { try await strict.prepare() }
            await strict.dispose()
            fixture.clock.advance(by: .seconds(16 * 60))
        }
    }

    @Test("Strict, a revision prepared in memory: shown offline while younger than 30 minutes, not after")
    func strictPrepared() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        var configuration = fixture.configuration()
        configuration.staleContent = .strict
        let host = try fixture.host(renderer, configuration: configuration)
        try await host.prepare()
        fixture.origin.behaviour = .offline
        fixture.clock.advance(by: .seconds(20 * 60))
        #expect(try await host.present().revision == 1)
        await host.dismiss()
        fixture.clock.advance(by: .seconds(11 * 60))
        await #expect(throws: HostError.self) { try await host.present() }
        #expect(renderer.record.shown.count == 1)
        await host.dispose()
    }
}

/// Cache first at every age [seed 002: "A cached copy for this flow key is rendered
/// immediately, if there is one. The SDK revalidates in the background"]: once the origin
/// answered in this launch too, content past 30 minutes is shown at once and revalidated behind
/// it, instead of waiting for the fetch deadline.
@Suite("Cache first at any age")
struct CacheFirstAtAnyAgeTests {
    @Test("Authorised, 31 minutes later, the origin hanging: prepare() and present() return from the cache without waiting on the clock")
    func instantAfterThirtyMinutes() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.startup = .cacheFirst
        let host = try fixture.host(configuration: configuration)
        try await host.prepare()
        fixture.clock.advance(by: .seconds(31 * 60))
        fixture.origin.behaviour = .hang

        let done = Locked(false)
        let preparation = Task {
            let prepared = try await host.prepare()
            done.withLock { $0 = true }
            return prepared
        }
        let instant = await eventually { done.withLock { $0 } }
        #expect(instant, "prepare() waited for the origin")
        guard instant else {
            // Unblock it and stop: what follows would wait on the clock too.
            fixture.clock.advance(by: configuration.fetchDeadline)
            _ = try await preparation.value
            fixture.origin.behaviour = .offline
            fixture.origin.release()
            await host.dispose()
            return
        }
        let prepared = try await preparation.value
        #expect(prepared.revision == 1 && prepared.stale == false)
        #expect(await eventually { fixture.origin.hangingCount == 1 }, "revalidated behind it")
        let session = try await host.present()
        #expect(session.revision == 1)
        await host.dismiss()

        // Resolving without a preparation is as instant.
        let resolved = Locked(false)
        let resolution = Task {
            let flow = try await host.resolveFlow()
            resolved.withLock { $0 = true }
            return flow
        }
        let resolvedAtOnce = await eventually { resolved.withLock { $0 } }
        if !resolvedAtOnce { fixture.clock.advance(by: configuration.fetchDeadline) }
        #expect(resolvedAtOnce, "resolveFlow() waited for the origin")
        #expect(try await resolution.value.source == .cache)
        fixture.origin.behaviour = .offline
        fixture.origin.release()
        await host.dispose()
    }
}
