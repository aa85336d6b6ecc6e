import Foundation
import LarderFormat
import LarderHost
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// What the app passes to `present(context:)` is readable by the content as
    /// `window.larder.context`, with a `larder:context` event when it arrives.
    @Suite struct PresentationContext {
        static let files = [
            "index.html": """
                <!doctype html><html><head><script>
                window.atFirstScript = JSON.stringify(window.larder && window.larder.context);
                window.heard = [];
                document.addEventListener("larder:context", (event) => heard.push(event.detail));
                </script></head><body><p>context</p><a href="next.html">next</a></body></html>
                """,
            "next.html": """
                <!doctype html><html><head><script>
                window.atFirstScript = JSON.stringify(window.larder && window.larder.context);
                </script></head><body><p>next</p></body></html>
                """,
        ]
        static let context = ["placement": "settings", "quoted": "a \"b\" </script>\u{2028}é"]
        static let expected = JSONValue.object(context.mapValues { .string($0) })

        @Test func aDirectPresentationFindsItsContextBeforeItsFirstScript() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles(Self.files)
            let (renderer, _) = try await fixture.startedRenderer()
            var content = try fixture.content(bundle)
            content.context = Self.context

            try await renderer.load(content, visible: true)

            #expect(try await renderer.evaluate("JSON.parse(atFirstScript)") == Self.expected)
            try await renderer.show(PresentationSession(id: "s1", journey: "journey_123", revision: 7, bundle: bundle, context: Self.context))
            #expect(try await renderer.evaluate("window.larder.context") == Self.expected)
            #expect(try await renderer.evaluate("heard") == .array([Self.expected]))
            await renderer.stop()
        }

        @Test func preparedContentGetsItWhenShownKeepsItAcrossPagesAndLosesItOnReset() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles(Self.files)
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            #expect(try await renderer.evaluate("JSON.parse(atFirstScript)") == .object([:]))

            try await renderer.show(PresentationSession(id: "s1", journey: "journey_123", revision: 7, bundle: bundle, context: Self.context))

            #expect(try await renderer.evaluate("window.larder.context") == Self.expected)
            #expect(try await renderer.evaluate("heard") == .array([Self.expected]))
            #expect(try await renderer.evaluate("Object.isFrozen(window.larder.context)") == .bool(true))
            _ = try await renderer.evaluate(#"document.querySelector('a[href="next.html"]').click()"#)
            #expect(await within { await renderer.state == .loaded(visible: true, document: "next.html") })
            #expect(try await renderer.evaluate("JSON.parse(atFirstScript)") == Self.expected)

            try await renderer.reset()

            #expect(try await renderer.evaluate("JSON.parse(atFirstScript)") == .object([:]), "the next presentation must not see this one's context")
            await renderer.stop()
        }
    }
}
