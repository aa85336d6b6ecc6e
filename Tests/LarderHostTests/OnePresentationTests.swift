import Foundation
@testable import LarderHost
import LarderTestSupport
import Testing

/// One presentation at a time among hosts sharing a coordinator [seed 001].
@Suite("One presentation at a time")
struct OnePresentationTests {
    @Test("Presenting on one host dismisses the other host's flow first; its outcome is replaced")
    func replaces() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        try fixture.publish("paywall", journey: "paywall")
        let (onboardingRenderer, paywallRenderer) = (ScriptedRenderer(), ScriptedRenderer())
        let onboarding = try fixture.host(onboardingRenderer)
        let paywall = try fixture.host(paywallRenderer, configuration: fixture.configuration(journey: "paywall"))

        let first = try await onboarding.present()
        let second = try await paywall.present()
        #expect(await onboarding.presentationState == .hidden)
        #expect(await paywall.presentationState == .presented(second))
        let replaced = await onboarding.waitForCompletion()
        #expect(replaced?.session == first)
        #expect(replaced?.outcome == .replaced)
        // Ended before the new one showed.
        #expect(replaced.map { $0.ended <= fixture.clock.now } == true)
        #expect(onboardingRenderer.record.resets == 1)
        #expect(await onboarding.timeline().contains { $0.kind == .dismissed && $0.detail == "session \(first.id): replaced on screen index.html" })

        // And back: the onboarding flow replaces the paywall.
        let third = try await onboarding.present()
        #expect(await paywall.presentationState == .hidden)
        #expect(await paywall.waitForCompletion()?.outcome == .replaced)
        #expect(await onboarding.presentationState == .presented(third))
        await onboarding.dispose()
        await paywall.dispose()
    }

    @Test("Two hosts presenting at the same time: once both calls returned, exactly one is on screen and the other was replaced")
    func concurrent() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let first = try fixture.host()
        let second = try fixture.host(configuration: fixture.configuration(identity: "bob"))
        try await first.prepare()
        try await second.prepare()
        for _ in 0..<5 {
            async let a = first.present()
            async let b = second.present()
            let sessions = try await [a, b]
            let states = [await first.presentationState, await second.presentationState]
            #expect(states.filter { $0 != .hidden }.count == 1, "\(states)")
            let hidden = states[0] == .hidden ? first : second
            let shown = states[0] == .hidden ? second : first
            let replaced = await hidden.waitForCompletion()
            #expect(replaced?.outcome == .replaced)
            #expect(replaced.map { sessions.contains($0.session) } == true)
            await shown.dismiss()
            #expect(await shown.waitForCompletion()?.outcome == .endedByApp)
        }
        #expect(!fixture.coordinator.isHeld)
        await first.dispose()
        await second.dispose()
    }

    @Test("A flow ended before another shows is not replaced; hosts of separate coordinators present side by side")
    func noReplacement() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let onboarding = try fixture.host()
        let other = try fixture.host(configuration: fixture.configuration(identity: "bob"))
        try await onboarding.present()
        await onboarding.dismiss()
        try await other.present()
        #expect(await onboarding.waitForCompletion()?.outcome == .endedByApp)

        let elsewhere = try JourneyHost(
            configuration: fixture.configuration(identity: "cy"), cache: fixture.cache, renderer: ScriptedRenderer(),
            storage: fixture.root + "/elsewhere", transport: fixture.origin, clock: fixture.clock, coordinator: PresentationCoordinator())
        let apart = try await elsewhere.present()
        #expect(await other.presentationState != .hidden)
        #expect(await elsewhere.presentationState == .presented(apart))
        await onboarding.dispose()
        await other.dispose()
        await elsewhere.dispose()
    }
}
