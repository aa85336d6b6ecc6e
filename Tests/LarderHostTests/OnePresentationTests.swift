import Foundation
import LarderHost
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
