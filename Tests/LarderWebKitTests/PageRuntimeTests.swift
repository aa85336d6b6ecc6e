import Foundation
import LarderFormat
import LarderHost
import LarderPack
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// The page runtime (`larder.js`, added by the packer) in WebKitGTK: its messages reach the
    /// host in the bridge's format, a refusal rejects the page's promise with the host's
    /// words, `ready()` holds the renderer's readiness when the bundle lists `ready`, and the
    /// page hears visibility, context and reset, holding its analytics while hidden.
    @Suite struct PageRuntime {
        /// Packs a folder of these files with `larder.json` through the packer and installs it.
        static func installFlow(_ fixture: WebKitFixture, _ files: [String: String]) throws -> Digest {
            let folder = fixture.root + "/flow-" + UUID().uuidString
            for (path, text) in files {
                let file = folder + "/" + path
                try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            }
            let report = try Packer.pack(source: folder, into: fixture.root + "/packed")
            #expect(report.warnings.isEmpty, "\(report.warnings)")
            return try fixture.cache.install(archiveAt: report.archivePath).bundle
        }

        static func configuration(capabilities: String) -> String {
            #"{"renderer": {"protocol": 1, "capabilities": [\#(capabilities)]}, "runtime": true}"#
        }

        /// A page that draws its first screen 400 ms after its script ran, then calls `ready()`.
        static let lateDrawing = """
            <!doctype html><html><head><script type="module">
            import { larder } from "./larder.js";
            setTimeout(() => { document.body.append(Object.assign(document.createElement("h1"), { textContent: "Drawn" })); larder.ready(); }, 400);
            </script></head><body></body></html>
            """

        @Test func readyHoldsReadinessWhenTheBundleListsIt() async throws {
            let fixture = try WebKitFixture()
            let bundle = try Self.installFlow(fixture, [
                "larder.json": Self.configuration(capabilities: #""prepare", "visibility", "ready""#), "index.html": Self.lateDrawing,
            ])
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            // Ready means drawn: the script's first screen is there as soon as the load returns.
            #expect(try await renderer.evaluate("document.querySelector('h1')?.textContent ?? null") == .string("Drawn"))
            #expect(try #require(await renderer.lastLoad).readyAfter >= .milliseconds(400))
            await renderer.stop()

            // The same page in a bundle without `ready`: ready when the document loaded, not drawn yet.
            let eager = try Self.installFlow(fixture, [
                "larder.json": Self.configuration(capabilities: #""prepare", "visibility""#), "index.html": Self.lateDrawing,
            ])
            let (other, _) = try await fixture.startedRenderer()
            try await other.load(try fixture.content(eager), visible: false)
            #expect(try await other.evaluate("document.querySelector('h1')?.textContent ?? null") == .null)
            await other.stop()
        }

        @Test func aPageThatNeverSaysReadyIsNotReadyByTheDeadline() async throws {
            let fixture = try WebKitFixture()
            let bundle = try Self.installFlow(fixture, [
                "larder.json": Self.configuration(capabilities: #""prepare", "visibility", "ready""#),
                "index.html": #"<!doctype html><html><head><script type="module">import { larder } from "./larder.js";</script></head><body>Never</body></html>"#,
            ])
            let (renderer, _) = try await fixture.startedRenderer(.init(loadTimeout: .seconds(2).scaledForTests))
            let content = try fixture.content(bundle)
            let error = await hostError { () async throws(HostError) in try await renderer.load(content, visible: false) }
            #expect(error?.code == .renderer)
            #expect(error?.message.contains("larder.ready()") == true, "\(String(describing: error))")
            await renderer.stop()
        }

        /// The page registers for events and tracks while hidden; the show releases what it held.
        static let listening = """
            <!doctype html><html><head><script type="module">
            import { larder } from "./larder.js";
            window.seen = [];
            larder.on("visibility", (detail) => seen.push(["visibility", detail]));
            larder.on("context", (context) => seen.push(["context", context]));
            larder.on("reset", () => { document.body.dataset.reset = "heard"; });
            window.tracked = larder.track("screen:viewed", { step: "1" });
            window.larderForTests = larder;
            larder.ready();
            </script></head><body>Listening</body></html>
            """

        @Test func visibilityContextAndResetReachThePageAndAnalyticsWaitForTheShow() async throws {
            let fixture = try WebKitFixture()
            let bundle = try Self.installFlow(fixture, [
                "larder.json": Self.configuration(capabilities: #""prepare", "visibility", "ready""#), "index.html": Self.listening,
            ])
            let (renderer, inbox) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            try await Task.sleep(for: .milliseconds(300))
            #expect(inbox.received.isEmpty, "tracked while hidden: \(inbox.received)")

            var shown = session("s1", bundle)
            shown.contextValues = ["plan": "pro"]
            try await renderer.show(shown)

            #expect(await within { inbox.received.count == 1 })
            guard case .capture(let event, let body) = inbox.received.first else { Issue.record("\(inbox.received)"); return }
            #expect(event.hasPrefix("track/"))
            #expect(String(decoding: body, as: UTF8.self) == #"{"name":"screen:viewed","properties":{"step":"1"},"type":"track"}"#)
            let seen = try await renderer.evaluate("seen")
            #expect(seen == .array([
                .array([.string("context"), .object(["plan": .string("pro")])]),
                .array([.string("visibility"), .object(["visible": .bool(true), "session": .string("s1"), "journey": .string("journey_123"), "revision": .int(7)])]),
            ]), "\(seen)")
            #expect(try await renderer.callAsyncFunction("return await window.tracked") == .string(event))
            #expect(try await renderer.evaluate("larderForTests.context.plan") == .string("pro"))

            try await renderer.reset()
            #expect(try await renderer.evaluate("document.body.dataset.reset ?? null") == .string("heard"))
            await renderer.stop()
        }

        @Test func eachActionReachesTheHostAndARefusalRejectsWithTheHostsWords() async throws {
            let fixture = try WebKitFixture()
            let bundle = try Self.installFlow(fixture, [
                "larder.json": Self.configuration(capabilities: #""prepare", "visibility""#),
                "index.html": #"<!doctype html><html><head><script type="module">import { larder } from "./larder.js"; window.larderForTests = larder;</script></head><body>Actions</body></html>"#,
            ])
            let (renderer, inbox) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            try await renderer.show(session("s1", bundle))

            let answers = try await renderer.callAsyncFunction("""
                const larder = window.larderForTests;
                const outcome = (promise) => promise.then((value) => "ok " + (value ?? ""), (error) => error.name + ": " + error.message);
                return [
                  await outcome(larder.navigate("screen-2.html")), await outcome(larder.capture({ answer: "yes" }, { event: "e1" })),
                  await outcome(larder.purchase("com.example.plus")), await outcome(larder.restore()),
                  await outcome(larder.openLink("https://example.com/terms")), await outcome(larder.custom("sign-in", { from: "test" })),
                  await outcome(larder.custom("ping")), await outcome(larder.complete()), await outcome(larder.dismiss()),
                  await outcome(larder.openLink("javascript:alert(1)")), await outcome(larder.track("Bad Name")),
                  await outcome(larder.purchase("")),
                ];
                """)
            #expect(answers == .array([
                "ok ", "ok e1", "ok ", "ok ", "ok ", "ok ", "ok ", "ok ", "ok ",
                "LarderError: field 'url' of a 'open-link' bridge message must use http, https or mailto, not 'javascript': 'javascript:alert(1)'",
                "LarderError: 'Bad Name' is not an event name: use lowercase letters, digits, '_' and ':', starting with a letter (at most 100)",
                "LarderError: purchase needs a non-empty product id",
            ]), "\(answers)")
            #expect(inbox.received == [
                .navigate(screen: "screen-2.html"), .capture(event: "e1", body: Array(#"{"answer":"yes"}"#.utf8)),
                .purchase(product: "com.example.plus"), .restorePurchases, .openLink(URL(string: "https://example.com/terms")!),
                .custom(name: "sign-in", payload: .object(["from": .string("test")])), .custom(name: "ping", payload: .null), .complete, .dismiss,
            ])
            #expect(await renderer.refusals.count == 1)
            await renderer.stop()
        }
    }
}
