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
            var messages = host.messages.makeAsyncIterator()
            let session = try await host.present()

            /// Clicks `selector` once the page shows it (a page navigated to may not have parsed yet).
            func click(_ selector: String) async throws {
                let element = "document.querySelector(" + String(decoding: JSONValue.string(selector).canonicalBytes, as: UTF8.self) + ")"
                #expect(try await within(.seconds(10).scaledForTests) { try await renderer.evaluate(element + " !== null") == .bool(true) }, "\(selector)")
                _ = try await renderer.evaluate(element + ".click()")
            }
            for (from, to) in [("index.html", "screen-2.html"), ("screen-2.html", "screen-3.html")] {
                #expect(await renderer.state == .loaded(visible: true, document: from))
                try await click(#"a.button[href="\#(to)"]"#)
                #expect(await messages.next() == .navigate(screen: to))
                #expect(await within(.seconds(10).scaledForTests) { await renderer.state == .loaded(visible: true, document: to) })
            }
            try await click(#"[data-action="complete"]"#)

            #expect(await messages.next() == .complete)
            let result = try #require(await host.waitForCompletion())
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
