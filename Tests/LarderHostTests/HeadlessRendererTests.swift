import Foundation
@testable import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderTestSupport
import Synchronization
import Testing

extension RendererFixture {
    /// Starts a new renderer and loads `bundle` hidden, expecting a failure.
    /// - Returns: the renderer and the error the load threw (nil if it succeeded).
    func failingLoad(_ bundle: Digest) async throws -> (renderer: HeadlessRenderer, error: HostError?) {
        let renderer = HeadlessRenderer()
        try await renderer.start(bridge: Inbox().bridge)
        let content = try content(bundle)
        return (renderer, await hostError { () async throws(HostError) in try await renderer.load(content, visible: false) })
    }

    /// Flips one byte of a stored object, as disk rot would.
    func flipByte(of object: Digest) throws {
        try flipFirstByte(at: objectPath(object))
    }
}

/// Sends `json` as content and returns the HostError it throws (nil if it does not throw one).
func receiveError(_ renderer: HeadlessRenderer, _ json: String) -> HostError? {
    do { try renderer.receive(Array(json.utf8)) } catch { return error }
    return nil
}

@Suite struct HeadlessRendererTests {
    /// (Onboarding's two Lato faces have a subset of their own for the arrows its text uses.)
    @Test(arguments: [("onboarding", 5), ("paywall", 2), ("legacy-prompt", 1)])
    func loadsEachSampleHiddenUntilReady(_ sample: String, _ fonts: Int) async throws {
        let fixture = try RendererFixture()
        let (bundle, manifest) = try fixture.installSample(sample)
        let renderer = HeadlessRenderer()
        try await renderer.start(bridge: Inbox().bridge)
        #expect(renderer.state == .started)

        try await renderer.load(try fixture.content(bundle), visible: false)

        let essential = manifest.files.filter(\.essential)
        #expect(essential.count > 2)
        #expect(
            renderer.lastLoad
                == HeadlessRenderer.LoadReport(
                    resources: essential.count, fonts: fonts, bytes: essential.reduce(0) { $0 + $1.size }, entry: "index.html"))
        #expect(renderer.state == .loaded(visible: false, screen: "index.html"))
        #expect(renderer.loads == 1)
        #expect(renderer.shownSessions.isEmpty)
    }

    @Test func showRecordsTheSessionAndResetGoesBackToTheFirstScreenHidden() async throws {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installSample("onboarding")
        let inbox = Inbox()
        let renderer = HeadlessRenderer()
        try await renderer.start(bridge: inbox.bridge)
        try await renderer.load(try fixture.content(bundle), visible: false)

        try await renderer.show(session("s1", bundle))
        #expect(renderer.state == .loaded(visible: true, screen: "index.html"))
        try renderer.receive(Array(#"{"type":"navigate","screen":"screen-2.html"}"#.utf8))
        #expect(renderer.state == .loaded(visible: true, screen: "screen-2.html"))
        #expect(inbox.received == [.navigate(screen: "screen-2.html")])

        try await renderer.reset()
        #expect(renderer.state == .loaded(visible: false, screen: "index.html"))
        #expect(renderer.resets == 1)
        try await renderer.show(session("s2", bundle))
        #expect(renderer.shownSessions == ["s1", "s2"])
        #expect(renderer.loads == 1)
    }

    @Test func aVisibleLoadIsVisibleAtOnce() async throws {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installSample("legacy-prompt")
        let renderer = HeadlessRenderer(capabilities: [])
        #expect(!renderer.supportsPreparation)
        try await renderer.start(bridge: Inbox().bridge)
        try await renderer.load(try fixture.content(bundle), visible: true)
        #expect(renderer.state == .loaded(visible: true, screen: "index.html"))
    }

    @Test func unloadDropsContentAndLoadBringsItBack() async throws {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installSample("paywall")
        let renderer = HeadlessRenderer()
        try await renderer.start(bridge: Inbox().bridge)
        try await renderer.load(try fixture.content(bundle), visible: false)

        await renderer.unload()
        #expect(renderer.state == .started)
        #expect(renderer.unloads == 1)
        let error = await hostError { () async throws(HostError) in try await renderer.show(session("s1", bundle)) }
        #expect(error?.code == .renderer)
        #expect(error?.message.contains("nothing loaded") == true)
        #expect(renderer.shownSessions.isEmpty)

        try await renderer.load(try fixture.content(bundle), visible: false)
        #expect(renderer.state == .loaded(visible: false, screen: "index.html"))
        #expect(renderer.loads == 2)
        try await renderer.show(session("s2", bundle))
        #expect(renderer.shownSessions == ["s2"])
    }

    @Test func aFontURLTheCacheDoesNotHaveIsNamed() async throws {
        let fixture = try RendererFixture()
        let missing = FontURL(digest: SHA256Hasher.hash(Array("no such font".utf8))).description
        let (bundle, _) = try fixture.installFiles([
            "index.html": #"<!doctype html><link rel="stylesheet" href="style.css"><p>hi"#,
            "style.css": "@font-face { font-family: X; src: url(\"\(missing)\") format(\"truetype\"); }",
        ])
        let (renderer, error) = try await fixture.failingLoad(bundle)
        #expect(error?.code == .renderer)
        #expect(error?.resource == missing)
        #expect(error?.cacheError?.code == .unknownFont)
        #expect(renderer.state == .started)
        #expect(renderer.lastLoad == nil)
    }

    @Test(arguments: ["index.html", "css/onboarding.css", "css/base.css", "images/plan.svg", "fonts/Lato-Bold.latin.woff2"])
    func aCorruptEssentialObjectIsNamedWithTheCacheError(_ path: String) async throws {
        let fixture = try RendererFixture()
        let (bundle, manifest) = try fixture.installSample("onboarding")
        let file = try #require(manifest.file(at: path))
        #expect(file.essential)
        try fixture.flipByte(of: file.digest)
        let (renderer, error) = try await fixture.failingLoad(bundle)
        #expect(error?.code == .renderer)
        #expect(error?.resource == path)
        #expect(error?.digest == file.digest)
        #expect(error?.cacheError?.code == .corruptObject)
        #expect(error?.cacheError?.bundles == [bundle])
        #expect(renderer.state == .started)
    }

    @Test(arguments: [
        (#"<img src="images/missing.png">"#, "images/missing.png"),
        (#"<a href="./next.html#top">next</a>"#, "next.html"),
        (#"<link rel=stylesheet href='css/a%20b.css?v=2'>"#, "css/a b.css"),
        (#"<IMG SRC = "pics/&#x61;.png">"#, "pics/a.png"),
        (#"<a href="sub/">sub</a>"#, "sub/index.html"),
        (#"<script src="../up.js"></script>"#, "../up.js"),
        (#"<img src="style.css" srcset="style.css 1x, hd/missing.png 2x">"#, "hd/missing.png"),
        (#"<style>.hero { background: url('images/gone.jpg') }</style>"#, "images/gone.jpg"),
        (#"<div style="background-image: url(&quot;bg.png&quot;)"></div>"#, "bg.png"),
    ])
    func anEntryReferenceToAMissingFileIsNamed(_ markup: String, _ resource: String) async throws {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installFiles([
            "index.html": "<!doctype html><link rel=\"stylesheet\" href=\"style.css\">\(markup)",
            "style.css": "p { color: green }",
        ])
        let (_, error) = try await fixture.failingLoad(bundle)
        #expect(error?.code == .renderer)
        #expect(error?.resource == resource)
        #expect(error?.cacheError == nil)
    }

    @Test(arguments: [
        ("url(../images/missing.png)", "images/missing.png"),
        ("@import 'parts/absent.css';", "css/parts/absent.css"),
        ("@font-face { font-family: x; src: url(\"/fonts/none.woff2\") format('woff2') }", "fonts/none.woff2"),
    ])
    func aStylesheetReferenceToAMissingFileIsNamedRelativeToTheStylesheet(_ css: String, _ resource: String) async throws {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installFiles([
            "index.html": #"<!doctype html><link rel="stylesheet" href="css/site.css">"#,
            "css/site.css": "body { background: url(bg.png) } \(css)",
            "css/bg.png": "png",
        ])
        let (_, error) = try await fixture.failingLoad(bundle)
        #expect(error?.code == .renderer)
        #expect(error?.resource == resource)
        #expect(error?.message.contains("'css/site.css' refers to") == true)
    }

    @Test func stylesheetReferencesResolveAgainstTheStylesheetsFolder() async throws {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installFiles([
            "index.html": #"<!doctype html><link rel="stylesheet" href="css/site.css"><img srcset="img/a.png 1x, img/b.png 2x">"#,
            "css/site.css": "body { background: url(bg.png) } @import url('../theme.css');",
            "css/bg.png": "png",
            "theme.css": "p { color: green }",
            "img/a.png": "a",
            "img/b.png": "b",
        ])
        let renderer = HeadlessRenderer()
        try await renderer.start(bridge: Inbox().bridge)
        try await renderer.load(try fixture.content(bundle), visible: false)
        #expect(renderer.lastLoad?.resources == 6)
    }

    @Test func referencesThatAreNotRelativePathsAreLeftAlone() async throws {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installFiles([
            "index.html": """
                <!doctype html><link rel="stylesheet" href="style.css?v=1">
                <a href="#terms">terms</a> <a href="https://example.com/missing.png">x</a>
                <script src="//cdn.example.com/missing.js"></script> <a href="mailto:help@example.com">mail</a>
                <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="> <a href="?tab=2">same</a>
                <!-- <img src="commented-out.png"> -->
                <script>var img = '<img src="in-script.png">';</script>
                <a href="./">home</a>
                """,
            "style.css": "p { color: green }",
        ])
        let renderer = HeadlessRenderer()
        try await renderer.start(bridge: Inbox().bridge)
        try await renderer.load(try fixture.content(bundle), visible: false)
        #expect(renderer.lastLoad?.resources == 2)
        #expect(renderer.lastLoad?.fonts == 0)
    }

    @Test func contentMessagesReachTheBridgeOnlyWhileLoaded() async throws {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installSample("paywall")
        let inbox = Inbox()
        let renderer = HeadlessRenderer()
        try await renderer.start(bridge: inbox.bridge)
        let early = receiveError(renderer, #"{"type":"dismiss"}"#)
        #expect(early?.code == .renderer)

        try await renderer.load(try fixture.content(bundle), visible: false)
        try renderer.receive(Array(#"{"type":"purchase","product":"com.example.sprout.plus.annual"}"#.utf8))
        let malformed = receiveError(renderer, #"{"type":"dismiss","reason":"closed"}"#)
        #expect(malformed?.code == .malformedDocument)
        try renderer.receive(Array(#"{"type":"dismiss"}"#.utf8))
        #expect(inbox.received == [.purchase(product: "com.example.sprout.plus.annual"), .dismiss])
        #expect(renderer.state == .loaded(visible: false, screen: "index.html"))
    }

    @Test func afterStopEveryCallIsRefused() async throws {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installSample("legacy-prompt")
        let renderer = HeadlessRenderer()
        let content = try fixture.content(bundle)
        let early = await hostError { () async throws(HostError) in try await renderer.load(content, visible: false) }
        #expect(early?.code == .renderer)
        try await renderer.start(bridge: Inbox().bridge)
        try await renderer.start(bridge: Inbox().bridge)
        try await renderer.load(content, visible: false)

        await renderer.stop()
        #expect(renderer.state == .stopped)
        let bridge = Inbox().bridge
        #expect(await hostError { () async throws(HostError) in try await renderer.start(bridge: bridge) }?.code == .disposed)
        #expect(await hostError { () async throws(HostError) in try await renderer.load(content, visible: false) }?.code == .disposed)
        #expect(await hostError { () async throws(HostError) in try await renderer.show(session("s1", bundle)) }?.code == .disposed)
        #expect(await hostError { () async throws(HostError) in try await renderer.reset() }?.code == .disposed)
        #expect(receiveError(renderer, #"{"type":"dismiss"}"#)?.code == .disposed)
        await renderer.unload()
        #expect(renderer.state == .stopped)
        #expect(renderer.unloads == 0)
    }
}
