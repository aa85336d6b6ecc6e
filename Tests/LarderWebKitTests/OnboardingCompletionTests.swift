import Foundation
import LarderFormat
import LarderHost
import LarderPack
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// The shipped onboarding reports `completed` at its end [seed 004: `if result.outcome ==
    /// .completed { // Unlock the feature ... }`]: walked to its last screen in the web engine,
    /// its "Start planning" posts `complete` (through the bridge's message format) and the
    /// presentation ends completed, with the answer captured.
    @Suite struct OnboardingCompletion {
        @Test func walkedToItsEndTheOnboardingEndsCompleted() async throws {
            let fixture = try WebKitFixture()
            let archive = try Packer.pack(source: sampleBundles + "/onboarding", into: fixture.root + "/packed").archivePath
            let renderer = WebKitRenderer(configuration: WebKitFixture.configuration)
            // Nothing listens on port 1: the host shows the archive shipped with the app.
            let host = try JourneyHost(
                configuration: JourneyConfiguration(
                    publishableKey: "pk_test", journeyID: "onboarding", origin: URL(string: "http://127.0.0.1:1/")!,
                    embeddedDefault: archive, presentationDeadline: .seconds(60).scaledForTests),
                cache: fixture.cache, renderer: renderer, storage: fixture.root + "/host", captureSink: Host.HeldSink(),
                coordinator: PresentationCoordinator(), connectivity: nil)
            // The app's messages, collected as they come and read one at a time, each wait
            // bounded: a message that never comes fails the test instead of holding the run.
            let log = MessageLog()
            let listening = Task { for await message in host.messages { await log.append(message) } }
            defer { listening.cancel() }
            func nextMessage() async -> BridgeMessage? {
                var taken: BridgeMessage?
                _ = await within(.seconds(20).scaledForTests) {
                    taken = await log.take()
                    return taken != nil
                }
                return taken
            }
            let session = try await host.present()

            /// Clicks `selector` once the page shows it and its scripts ran (a page navigated to
            /// may not have parsed yet, and its module script, which turns a click into a bridge
            /// message, runs after parsing: a click before it just follows the link).
            func click(_ selector: String) async throws {
                let element = "document.querySelector(" + String(decoding: JSONValue.string(selector).canonicalBytes, as: UTF8.self) + ")"
                let ready = element + #" !== null && document.readyState === "complete""#
                #expect(try await within(.seconds(10).scaledForTests) { try await renderer.evaluate(ready) == .bool(true) }, "\(selector)")
                _ = try await renderer.evaluate(element + ".click()")
            }
            for (from, to) in [("index.html", "screen-2.html"), ("screen-2.html", "screen-3.html")] {
                #expect(await within(.seconds(10).scaledForTests) { await renderer.state == .loaded(visible: true, document: from) })
                try await click(#"a.button[href="\#(to)"]"#)
                #expect(await nextMessage() == .navigate(screen: to))
                #expect(await within(.seconds(10).scaledForTests) { await renderer.state == .loaded(visible: true, document: to) })
            }
            try await click(#"[data-action="complete"]"#)

            #expect(await nextMessage() == .complete)
            let result = try #require(await value(within: .seconds(20)) { await host.waitForCompletion() } ?? nil, "no completion")
            #expect(result.session == session && result.outcome == .completed)
            #expect(result.screen == JourneyScreen(id: "screen-3.html"))
            let answer = try #require(try await host.pendingCaptures().last)
            #expect(answer.session == session.id)
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"screen":"screen-3.html","answer":"completed"}"#)
            await host.dispose()
        }
    }

    /// JSON values in the presentation's context reach the page as they are.
    @Suite struct JSONContext {
        @Test func nestedValuesAreReadAsJSON() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles([
                "index.html": "<!doctype html><html><head><script>window.atFirstScript = JSON.stringify(window.larder.context);</script></head><body>x</body></html>"
            ])
            let (renderer, _) = try await fixture.startedRenderer()
            let context: [String: JSONValue] = ["plan": ["tier": "pro", "seats": 3], "beta": true, "tags": ["a", "b"], "ratio": 0.5, "none": nil]
            var content = try fixture.content(bundle)
            content.contextValues = context
            try await renderer.load(content, visible: true)
            #expect(try await renderer.evaluate("JSON.parse(atFirstScript)") == .object(context))
            var session = PresentationSession(id: "s1", journey: "journey_123", revision: 7, bundle: bundle)
            session.contextValues = context
            try await renderer.show(session)
            #expect(try await renderer.evaluate("window.larder.context.plan.seats") == .int(3))
            await renderer.stop()
        }
    }
}

/// Messages as they came, taken in order.
private actor MessageLog {
    private var messages: [BridgeMessage] = []
    private var taken = 0

    func append(_ message: BridgeMessage) { messages.append(message) }

    /// The next message not taken yet, nil when none is waiting.
    func take() -> BridgeMessage? {
        guard taken < messages.count else { return nil }
        taken += 1
        return messages[taken - 1]
    }
}
