import Foundation
import LarderHost
import LarderSystem
import LarderTestSupport
import Testing

/// How presentations end, what they report and the screen on show, at host level [seed 004].
@Suite("Presentation results")
struct PresentationResultTests {
    /// The result of the open presentation; a watchdog disposes the host after 10 s (scaled),
    /// which ends it as ended by the app, so a missing end fails instead of hanging.
    static func completion(of host: JourneyHost) async -> PresentationResult? {
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10).scaledForTests)
            await host.dispose()
        }
        defer { watchdog.cancel() }
        return await host.waitForCompletion()
    }

    /// Waits until the app has received `count` messages from the content.
    static func received(_ count: Int, from host: JourneyHost) async -> [BridgeMessage] {
        var messages: [BridgeMessage] = []
        for await message in host.messages {
            messages.append(message)
            if messages.count == count { break }
        }
        return messages
    }

    @Test("What the content sent decides the outcome; the result names the session and the last screen", arguments: [
        ([BridgeMessage.complete], PresentationOutcome.completed, "index.html"),
        ([.dismiss], .dismissed, "index.html"),
        ([.navigate(screen: "screen-2.html"), .purchase(product: "com.example.sprout.plus.annual"), .dismiss], .purchased, "screen-2.html"),
        ([.restorePurchases, .complete], .restored, "index.html"),
        ([.restorePurchases, .purchase(product: "plus"), .complete], .purchased, "index.html"),
        ([.navigate(screen: "screen-2.html"), .openLink(URL(string: "https://sprout.example.com/terms")!),
          .custom(name: "step", payload: .string("two")), .navigate(screen: "screen-3.html"), .complete], .completed, "screen-3.html"),
    ] as [([BridgeMessage], PresentationOutcome, String)])
    func contentDecides(_ messages: [BridgeMessage], _ outcome: PresentationOutcome, _ screen: String) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let session = try await host.present()
        for message in messages { renderer.post(message) }

        let result = await Self.completion(of: host)
        #expect(result?.session == session)
        #expect(result?.outcome == outcome)
        #expect(result?.screen == JourneyScreen(id: screen))
        #expect(result?.ended == fixture.clock.now)
        #expect(await host.presentationState == .hidden)
        #expect(await host.currentScreen == nil)
        #expect(await host.timeline().contains { $0.kind == .dismissed && $0.detail == "session \(session.id): \(outcome.rawValue) on screen \(screen)" })
        // Every message still reached the app.
        #expect(await Self.received(messages.count, from: host) == messages)
        await host.dispose()
    }

    @Test("The app's dismiss ends it as ended by the app, unless the content asked for a purchase first")
    func appDismiss() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.present()
        await host.dismiss()
        #expect(await host.waitForCompletion()?.outcome == .endedByApp)

        try await host.present()
        renderer.post(.purchase(product: "plus"))
        #expect(await Self.received(1, from: host) == [.purchase(product: "plus")])
        await host.dismiss()
        #expect(await host.waitForCompletion()?.outcome == .purchased)
        await host.dispose()
    }

    @Test("currentScreen: nil before the first screen, the entry when shown, then each navigation; nil again after the end")
    func currentScreen() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let updates = await host.screenUpdates()
        try await host.prepare()
        // Hidden content navigating shows nothing yet.
        renderer.post(.navigate(screen: "screen-3.html"))
        #expect(await Self.received(1, from: host) == [.navigate(screen: "screen-3.html")])
        #expect(await host.currentScreen == nil)

        try await host.present()
        #expect(await host.currentScreen == JourneyScreen(id: "index.html"))
        #expect(await host.currentScreen?.name == "index")
        renderer.post(.navigate(screen: "screen-2.html"))
        #expect(await eventually { await host.currentScreen == JourneyScreen(id: "screen-2.html") })
        #expect(await host.currentScreen?.name == "screen-2")
        await host.dismiss()
        #expect(await host.currentScreen == nil)
        await host.dispose()

        var seen: [JourneyScreen?] = []
        for await screen in updates { seen.append(screen) }
        #expect(seen == [nil, JourneyScreen(id: "index.html"), JourneyScreen(id: "screen-2.html"), nil])
    }

    @Test("waitForCompletion: nil before any presentation, the last result once none is open; the stream gets every result in order")
    func waitingAndStream() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        #expect(await host.waitForCompletion() == nil)
        let results = await host.presentationResults()

        let first = try await host.present()
        renderer.post(.dismiss)
        let ended = await Self.completion(of: host)
        #expect(ended?.session == first && ended?.outcome == .dismissed)
        #expect(await host.waitForCompletion() == ended)

        let second = try await host.present()
        // Disposal ends the open presentation: the waiter hears of it.
        let waiter = Task { await host.waitForCompletion() }
        #expect(await eventually { await host.presentationState == .presented(second) })
        await host.dispose()
        let last = await waiter.value
        #expect(last?.session == second && last?.outcome == .endedByApp)

        var all: [PresentationResult] = []
        for await result in results { all.append(result) }
        #expect(all.map(\.session) == [first, second])
        #expect(all.map(\.outcome) == [.dismissed, .endedByApp])
    }

    @Test("A denial or the renderer ending stops it as failed; a new scope as ended by the app")
    func endedByTheHost() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)

        try await host.present()
        renderer.terminate("the web process crashed")
        #expect(await Self.completion(of: host)?.outcome == .failed)

        try await host.present()
        await host.updateConfiguration(fixture.configuration(identity: "bob"))
        #expect(await host.waitForCompletion()?.outcome == .endedByApp)

        try await host.present()
        fixture.origin.behaviour = .status(403, [:])
        fixture.clock.advance(by: .seconds(10 * 60))
        await host.refresh()
        #expect(await host.presentationState == .hidden)
        #expect(await host.waitForCompletion()?.outcome == .failed)
        #expect(await host.timeline().contains { $0.kind == .discarded && $0.detail.hasSuffix(" stopped: failed on screen index.html") })
        await host.dispose()
    }
}
