import Foundation
import LarderFormat
import LarderHost
import LarderTestSupport
import Testing

/// ``JourneyTriggers`` on the fake origin [seed 001: "an experience appears when the user fires
/// a specific event via trigger()", "Use the TriggerHandle to observe what happened:
/// .flowShown / .suppressed(reason) / .noMatch", "reentry policies control how often a
/// experience appears", "Only one experience can be presented at a time", "After the app
/// returns to the foreground, there is a short grace period ... before experiences can
/// appear", "When the user logs out (reset()), all experience caches are cleared"].
@Suite("Event triggers")
struct JourneyTriggersTests {
    @Test("An event the triggers map to a journey presents it, through its host, with the event in its context; others match nothing")
    func shownAndNoMatch() async throws {
        let fixture = try HostFixture()
        let document = try fixture.publish("paywall", journey: "paywall")
        try fixture.publishTriggers(["checkout_started"], journey: "paywall")
        let router = try fixture.triggers()

        let decision = try await router.trigger("checkout_started", properties: ["cart": ["items": 3]])

        guard case .shown(let journey, let session) = decision else { Issue.record("\(decision)"); return }
        #expect(journey == "paywall" && session.revision == document.revision && session.bundle == document.bundle)
        #expect(session.contextValues == ["cart": ["items": 3], "larder:trigger": "checkout_started"])
        let host = try await router.host(for: "paywall")
        #expect(await host.presentationState == .presented(session))
        #expect(try await router.trigger("app_opened") == .noMatch)
        await host.dismiss()
        await router.dispose()
    }

    @Test("Reentry once: shown once per person, remembered across restarts, forgotten by a logout")
    func reentryOnce() async throws {
        let fixture = try HostFixture()
        try fixture.publish("paywall", journey: "paywall")
        try fixture.publishTriggers(["checkout_started"], journey: "paywall", reentry: .once)
        let configuration = fixture.configuration(identity: "usr_1")
        let router = try fixture.triggers(configuration: configuration)
        guard case .shown = try await router.trigger("checkout_started") else { Issue.record("not shown"); return }
        await (try await router.host(for: "paywall")).dismiss()
        #expect(try await router.trigger("checkout_started") == .suppressed(journey: "paywall", reason: .reentry))
        await router.dispose()

        // A restart: the same storage remembers it for this person; another person starts afresh.
        let restarted = try fixture.triggers(configuration: configuration)
        #expect(try await restarted.trigger("checkout_started") == .suppressed(journey: "paywall", reason: .reentry))
        let other = try fixture.triggers(configuration: fixture.configuration(identity: "usr_2"))
        guard case .shown = try await other.trigger("checkout_started") else { Issue.record("another person: not shown"); return }
        await other.dispose()

        try await restarted.logout()
        guard case .shown = try await restarted.trigger("checkout_started") else { Issue.record("after the logout: not shown"); return }
        await restarted.dispose()
    }

    @Test("Reentry every hour: suppressed within the hour, shown once it passed")
    func reentryEvery() async throws {
        let fixture = try HostFixture()
        try fixture.publish("paywall", journey: "paywall")
        try fixture.publishTriggers(["checkout_started"], journey: "paywall", reentry: .every(seconds: 3600))
        let router = try fixture.triggers()
        guard case .shown = try await router.trigger("checkout_started") else { Issue.record("not shown"); return }
        let host = try await router.host(for: "paywall")
        await host.dismiss()
        fixture.clock.advance(by: .seconds(3599))
        #expect(try await router.trigger("checkout_started") == .suppressed(journey: "paywall", reason: .reentry))
        fixture.clock.advance(by: .seconds(1))
        guard case .shown = try await router.trigger("checkout_started") else { Issue.record("after the hour: not shown"); return }
        await router.dispose()
    }

    @Test("One at a time: a trigger never replaces another host's open presentation")
    func anotherPresentationOpen() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        try fixture.publish("paywall", journey: "paywall")
        try fixture.publishTriggers(["checkout_started"], journey: "paywall")
        let onboarding = try fixture.host()
        let open = try await onboarding.present()
        let router = try fixture.triggers()

        #expect(try await router.trigger("checkout_started") == .suppressed(journey: "paywall", reason: .presentationOpen))
        #expect(await onboarding.presentationState == .presented(open))

        await onboarding.dismiss()
        guard case .shown = try await router.trigger("checkout_started") else { Issue.record("after the dismissal: not shown"); return }
        await router.dispose()
        await onboarding.dispose()
    }

    @Test("Just back in the foreground (the process-wide signal): suppressed during the grace, shown after it")
    func foregroundGrace() async throws {
        let fixture = try HostFixture()
        try fixture.publish("paywall", journey: "paywall")
        try fixture.publishTriggers(["checkout_started"], journey: "paywall")
        let router = try fixture.triggers()
        _ = try await router.host(for: "paywall")
        await fixture.coordinator.setForeground(false)
        await fixture.coordinator.setForeground(true)

        #expect(try await router.trigger("checkout_started") == .suppressed(journey: "paywall", reason: .foregroundGrace))
        fixture.clock.advance(by: .milliseconds(500))
        guard case .shown = try await router.trigger("checkout_started") else { Issue.record("after the grace: not shown"); return }
        await router.dispose()
    }

    @Test("Offline: the triggers kept from an earlier launch decide, the journey comes from the cache; nothing cached is no content")
    func offline() async throws {
        let fixture = try HostFixture()
        try fixture.publish("paywall", journey: "paywall")
        try fixture.publish("onboarding")
        try fixture.publishTriggers(["checkout_started"], journey: "paywall")
        try fixture.publishTriggers(["app_opened"], journey: "onboarding")
        let first = try fixture.triggers()
        #expect(await first.refreshTriggers() == nil)
        try await (try await first.host(for: "paywall")).prepare()
        await first.dispose()

        fixture.origin.behaviour = .offline
        let router = try fixture.triggers()
        guard case .shown(_, let session) = try await router.trigger("checkout_started") else { Issue.record("offline: not shown"); return }
        #expect(session.source == .cache)
        await (try await router.host(for: "paywall")).dismiss()
        // Onboarding was never fetched: nothing to show, and the app is told so.
        #expect(try await router.trigger("app_opened") == .suppressed(journey: "onboarding", reason: .noContent))
        await router.dispose()

        // A first launch offline has no triggers at all.
        let empty = try HostFixture()
        empty.origin.behaviour = .offline
        let fresh = try empty.triggers()
        #expect(try await fresh.trigger("checkout_started") == .suppressed(journey: nil, reason: .noContent))
        await fresh.dispose()
    }

    @Test("A journey the origin denies: suppressed as denied")
    func denied() async throws {
        let fixture = try HostFixture()
        try fixture.publish("paywall", journey: "paywall")
        try fixture.publishTriggers(["checkout_started"], journey: "paywall")
        let router = try fixture.triggers()
        #expect(await router.refreshTriggers() == nil)
        fixture.origin.behaviour = .status(403, [:])
        #expect(try await router.trigger("checkout_started") == .suppressed(journey: "paywall", reason: .denied))
        await router.dispose()
    }

    @Test("The triggers document is revalidated with its ETag after 10 minutes; a new revision maps the event elsewhere")
    func revalidated() async throws {
        let fixture = try HostFixture()
        try fixture.publish("paywall", journey: "paywall")
        try fixture.publish("onboarding")
        try fixture.publishTriggers(["checkout_started"], journey: "paywall")
        let router = try fixture.triggers()
        #expect(await router.refreshTriggers() == nil)
        #expect(fixture.origin.triggerRequests.count == 1)
        #expect(try await router.currentTriggers()?.revision == 1)
        fixture.clock.advance(by: .seconds(600))
        #expect(await router.refreshTriggers() == nil)
        let second = try #require(fixture.origin.triggerRequests.last)
        #expect(second.headers["If-None-Match"] != nil && second.headers["X-Larder-Key"] == HostFixture.key)

        try fixture.publishTriggers(["checkout_started"], journey: "onboarding")
        fixture.clock.advance(by: .seconds(600))
        #expect(await router.refreshTriggers() == nil)
        #expect(try await router.currentTriggers()?.trigger(for: "checkout_started")?.journey == "onboarding")
        guard case .shown(let journey, _) = try await router.trigger("checkout_started") else { Issue.record("not shown"); return }
        #expect(journey == "onboarding")
        await router.dispose()
    }

    @Test("With trusted keys: a signed triggers document decides; an unsigned one is refused and nothing is shown")
    func signed() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        try fixture.publish("paywall", journey: "paywall")
        try fixture.publishTriggers(["checkout_started"], journey: "paywall")
        var configuration = fixture.configuration()
        configuration.trustedKeys = [key.publicKey]
        let router = try fixture.triggers(configuration: configuration)
        #expect(await router.refreshTriggers()?.code == .rejected)
        #expect(try await router.currentTriggers() == nil)
        await router.dispose()

        try fixture.publishTriggers(["checkout_started"], journey: "paywall", signingKey: key)
        fixture.clock.advance(by: .seconds(31))
        let trusting = try fixture.triggers(configuration: configuration)
        #expect(await trusting.refreshTriggers() == nil)
        #expect(try await trusting.currentTriggers()?.signature?.keyID == key.publicKey.id)
        await trusting.dispose()
    }

    @Test("A bad event name is a typed error")
    func badEventName() async throws {
        let fixture = try HostFixture()
        let router = try fixture.triggers()
        let error = await #expect(throws: HostError.self) { try await router.trigger("Checkout Started") }
        #expect(error?.code == .invalidEventName)
        #expect(error?.message.contains("'Checkout Started'") == true)
        await router.dispose()
    }
}
