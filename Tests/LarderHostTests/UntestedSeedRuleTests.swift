import Foundation
import LarderTestSupport
import LarderHost
import Testing

/// Rules the seeds state that no other test pinned down (issue 21, item 15): the scheduled
/// refresh meeting an open presentation [000], the renderer starting while the configuration
/// is still in flight [000], a 304 never reloading the renderer [002], and a new content hash
/// taking the previous revision's bundle out of the cache once nothing leases it [001].
@Suite("Seed rules without a test before")
struct UntestedSeedRuleTests {
    @Test("The scheduled refresh firing during a presentation stages the new revision; the user keeps what they see")
    func scheduledRefreshDuringPresentation() async throws {
        let fixture = try HostFixture()
        let first = try fixture.publish("onboarding", refresh: 600)
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        // Preparing scheduled one refresh (RefreshScheduleTests); its timer fires at 600 s even if
        // it starts sleeping after the clock moved.
        let session = try await host.present()
        let second = try fixture.publish("paywall", refresh: 600)

        // No call of the app's: the host's own timer fires.
        fixture.clock.advance(by: .seconds(600))

        #expect(await eventually { fixture.origin.journeyRequestCount == 2 })
        #expect(await eventually { await host.timeline().contains { $0.kind == .staged } })
        #expect(try fixture.cache.bundle(second.bundle)?.complete == true)
        #expect(await host.presentationState == .presented(session))
        #expect(renderer.record.loadedBundles == [first.bundle], "nothing is loaded over the open flow")
        #expect(renderer.record.resets == 0 && renderer.record.unloads == 0)
        #expect(try fixture.cache.bundle(first.bundle)?.complete == true, "the bundle on screen stays in the cache")
        await host.dismiss()
        #expect(renderer.record.loadedBundles == [first.bundle, second.bundle])
        #expect(try await host.present().revision == second.revision)
    }

    @Test("The renderer starts while the configuration request is still unanswered, not after it")
    func rendererStartsBesideTheFetch() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        fixture.origin.behaviour = .hang
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)

        let preparation = Task { try await host.prepare() }

        #expect(await eventually { fixture.origin.hangingCount == 1 }, "the configuration request is in flight")
        #expect(await eventually { renderer.record.starts == 1 }, "the renderer started while it was")
        #expect(fixture.origin.hangingCount == 1, "and the request is still unanswered")
        #expect(renderer.record.loads.isEmpty, "nothing to load before the answer")
        fixture.origin.behaviour = .serve
        fixture.origin.release()
        let journey = try await preparation.value
        #expect(journey.source == .network)
        #expect(renderer.record.starts == 1, "started once")
        #expect(renderer.record.loads == [false])
    }

    @Test("A 304 renews the prepared content without loading, resetting or unloading the renderer")
    func notModifiedNeverReloads() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", refresh: 600)
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        #expect(renderer.record.loads == [false])

        for round in 1...3 {
            fixture.clock.advance(by: .seconds(31 * 60))
            let journey = try await host.prepare()
            #expect(journey.source == .revalidated, "round \(round)")
        }

        #expect(fixture.origin.journeyRequestCount == 4)
        #expect(renderer.record.loads == [false])
        #expect(renderer.record.resets == 0 && renderer.record.unloads == 0)
    }

    @Test("A new content hash takes the previous revision's bundle out of the cache once nothing leases it")
    func previousBundleLeavesTheCache() async throws {
        let fixture = try HostFixture()
        let first = try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        #expect(try fixture.cache.bundle(first.bundle)?.complete == true)
        let second = try fixture.publish("paywall")
        #expect(second.bundle != first.bundle)

        fixture.clock.advance(by: .seconds(31 * 60))
        let journey = try await host.prepare()

        #expect(journey.bundle == second.bundle)
        #expect(try fixture.cache.bundle(first.bundle) == nil, "the old revision's bundle is gone")
        #expect(try fixture.cache.bundle(second.bundle)?.complete == true)
        // The same, held open by a presentation: gone only after the dismissal released it.
        let third = try fixture.publish("legacy-prompt")
        let session = try await host.present()
        fixture.clock.advance(by: .seconds(31 * 60))
        await host.refresh()
        #expect(session.bundle == second.bundle)
        #expect(try fixture.cache.bundle(second.bundle)?.complete == true, "leased by the open presentation")
        await host.dismiss()
        #expect(await eventually { (try? fixture.cache.bundle(second.bundle)) == .some(nil) })
        #expect(try fixture.cache.bundle(third.bundle)?.complete == true)
        await host.dispose()
    }
}
