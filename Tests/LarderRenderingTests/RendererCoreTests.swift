import LarderCache
import LarderFormat
import LarderHost
@testable import LarderRendering
import LarderTestSupport
import Testing

/// The renderer's rules on a fake engine: what reaches the page, what the schemes answer, and
/// when a load is ready.
@Suite struct RendererCoreTests {
    static let files = ["index.html": "<p>Hello</p>", "app.js": "1", "style.css": "p {}"]

    /// A core driving a fake engine, started, and a bundle of ``files`` to load.
    func started(_ configuration: RendererConfiguration = RendererConfiguration())
        throws -> (RendererCore, FakePageEngine, RendererFixture, Digest, Inbox)
    {
        let fixture = try RendererFixture()
        let (bundle, _) = try fixture.installFiles(Self.files)
        let core = RendererCore(configuration: configuration)
        let engine = FakePageEngine()
        engine.core = core
        core.attach(engine, proxy: .http("http://127.0.0.1:9"))
        let inbox = Inbox()
        try core.start(bridge: inbox.bridge)
        return (core, engine, fixture, bundle, inbox)
    }

    @Test func attachingRoutesTheNetworkThroughTheProxyBeforeAnythingLoads() throws {
        let (core, engine, _, _, _) = try started()
        #expect(engine.proxies == [.http("http://127.0.0.1:9")])
        #expect(engine.loaded.isEmpty)
        #expect(core.state == .started)
    }

    @Test func contextsOfJSONValuesReachThePageAsJSON() async throws {
        let (core, engine, fixture, bundle, _) = try started()
        var content = try fixture.content(bundle)
        content.contextValues = ["plan": "pro", "seats": 3, "flags": ["trial": true, "ends": nil], "tags": ["a", 1.5]]
        try await core.load(content, visible: false)
        let json = #"{"flags":{"ends":null,"trial":true},"plan":"pro","seats":3,"tags":["a",1.5]}"#
        #expect(engine.contextScripts == [PageScripts.context(json)])
        #expect(engine.loaded == [RendererCore.url(of: "index.html", in: bundle)])
        #expect(core.state == .loaded(visible: false, document: "index.html"))

        var shown = session("s1", bundle)
        shown.contextValues = ["seats": 4, "nested": ["deep": [1, 2]]]
        try await core.show(shown)
        let sessionJSON = #"{"nested":{"deep":[1,2]},"seats":4}"#
        #expect(engine.contextScripts.last == PageScripts.context(sessionJSON))
        #expect(engine.evaluated.first == PageScripts.contextChange(sessionJSON))
        #expect(engine.evaluated.last?.contains("larder:visibility") == true)
        #expect(engine.visible.last == true)
        #expect(core.shownSessions == ["s1"])
        #expect(core.state == .loaded(visible: true, document: "index.html"))
    }

    @Test func everySchemeAnswerCarriesTheContentSecurityPolicy() async throws {
        let remote = try RemotePolicy(allowing: ["https://api.example.com"])
        let (core, _, fixture, bundle, _) = try started(RendererConfiguration(remote: remote))
        try await core.load(try fixture.content(bundle), visible: false)
        func policy(_ response: SchemeResponse) -> String? {
            response.headers.first { $0.name == "Content-Security-Policy" }?.value
        }

        let page = await core.answer(url: RendererCore.url(of: "index.html", in: bundle), method: "GET")
        #expect(page.status == 200)
        #expect(page.body == Array("<p>Hello</p>".utf8))
        #expect(page.mediaType.hasPrefix("text/html"))
        #expect(policy(page) == remote.contentSecurityPolicy)
        #expect(page.headers.contains { $0.name == "Cache-Control" && $0.value == "max-age=31536000, immutable" })

        // A script answers under the worker policy: what a worker runs under.
        let script = await core.answer(url: RendererCore.url(of: "app.js", in: bundle), method: "GET")
        #expect(script.status == 200)
        #expect(policy(script) == remote.workerPolicy)

        // Refusals carry it too, with their status.
        let other = String(repeating: "cd", count: 32)
        for (url, method, status) in [
            ("larder://\(other)/index.html", "GET", 403), (RendererCore.url(of: "index.html", in: bundle), "POST", 405),
            (RendererCore.url(of: "none.html", in: bundle), "GET", 404), ("larder://\(bundle.hex)/100%.html", "GET", 400),
            (FontURL(digest: SHA256Hasher.hash(Array("no font".utf8))).description, "GET", 404),
        ] {
            let answer = await core.answer(url: url, method: method)
            #expect(answer.status == status, "\(url)")
            #expect(policy(answer) == remote.contentSecurityPolicy, "\(url)")
        }
        #expect(core.servedRequests.map(\.status) == [200, 200, 403, 405, 404, 400, 404])
    }

    @Test func aRequestWithNothingLoadedIsRefused() async throws {
        let core = RendererCore(configuration: RendererConfiguration())
        let answer = await core.answer(url: "larder://\(String(repeating: "ab", count: 32))/index.html", method: "GET")
        #expect(answer.status == 404)
        #expect(answer.headers.contains { $0.name == "Content-Security-Policy" })
    }

    @Test func aReadyPageLoadsAndItsReportNamesTheFaces() async throws {
        let (core, engine, fixture, bundle, _) = try started()
        engine.readiness["faces"] = [
            ["family": "\"Lato\"", "weight": "400", "style": "normal", "range": "U+0-10FFFF", "status": "loaded", "needed": true]
        ]
        try await core.load(try fixture.content(bundle), visible: true)
        #expect(core.loads == 1)
        #expect(core.lastLoad?.document == "index.html")
        #expect(core.lastLoad?.fonts.map(\.family) == ["Lato"])
        #expect(engine.visible == [true])
    }

    /// The verdict: the first thing wrong fails the load, naming what.
    @Test(arguments: [
        (
            "faces",
            JSONValue.array([
                ["family": "Lato", "weight": "700", "style": "italic", "range": "U+0-10FFFF", "status": "error", "needed": true]
            ]), "the font 'Lato' (weight 700, italic) did not load: its status is 'error'"
        ),
        (
            "errors",
            JSONValue.array([["id": "f:1", "kind": "error", "message": "boom", "source": "", "line": 3, "column": 7]]),
            "a script error at load: boom"
        ),
    ])
    func anUnreadyPageFailsItsLoad(_ field: String, _ value: JSONValue, _ expected: String) async throws {
        let (core, engine, fixture, bundle, _) = try started()
        engine.readiness[field] = value
        let error = await hostError { () async throws(HostError) in try await core.load(try! fixture.content(bundle), visible: false) }
        #expect(error?.code == .renderer)
        #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        #expect(core.state == .started)
        #expect(core.loads == 0)
    }

    @Test func aLoadThatNeverFinishesEndsItsWebProcessAtTheDeadline() async throws {
        let (core, engine, fixture, bundle, _) = try started()
        engine.finishesLoads = false
        let error = await hostError { () async throws(HostError) in try await core.load(try! fixture.content(bundle), visible: false) }
        #expect(error?.message.contains("not ready within") == true, "\(String(describing: error))")
        // The deadline ends the web process: nothing spins or grows past it.
        #expect(engine.terminations == 1)
        #expect(core.state == .started)
    }

    @Test func aWebProcessThatEndsByItselfIsReportedOnce() async throws {
        let (core, engine, fixture, bundle, inbox) = try started()
        try await core.load(try fixture.content(bundle), visible: false)
        core.webProcessTerminated(.requested)
        #expect(inbox.events.isEmpty)
        core.webProcessTerminated(.exceededMemoryLimit)
        #expect(core.terminations == 1)
        #expect(core.state == .started)
        #expect(inbox.events.count == 1)
        _ = engine
    }

    @Test func navigationsLeaveOnlyForTheBundleAndAllowedOrigins() async throws {
        let remote = try RemotePolicy(allowing: ["https://api.example.com"])
        let (core, _, fixture, bundle, _) = try started(RendererConfiguration(remote: remote))
        try await core.load(try fixture.content(bundle), visible: false)
        #expect(core.allows(NavigationRequest(uri: RendererCore.url(of: "style.css", in: bundle), kind: .navigation)))
        #expect(core.allows(NavigationRequest(uri: "https://api.example.com/x", kind: .navigation)))
        #expect(core.allows(NavigationRequest(uri: "about:blank", kind: .navigation)))
        #expect(!core.allows(NavigationRequest(uri: "https://evil.example/", kind: .formSubmission)))
        #expect(!core.allows(NavigationRequest(uri: RendererCore.url(of: "index.html", in: bundle), kind: .newWindow)))
        #expect(core.blockedRequests.map(\.reason) == ["form-submission", "popup"])
    }

    @Test func bridgeMessagesReachTheHostAndMalformedOnesAreRefused() async throws {
        let (core, _, fixture, bundle, inbox) = try started()
        try await core.load(try fixture.content(bundle), visible: false)
        #expect(core.received(Array(#"{"type":"dismiss"}"#.utf8), on: PageScripts.bridgeChannel) == nil)
        #expect(inbox.received.count == 1)
        #expect(core.received(nil, on: PageScripts.bridgeChannel) != nil)
        #expect(core.refusals.count == 1)
    }

    @Test func stopIsForGood() async throws {
        let (core, _, _, _, _) = try started()
        #expect(core.stop())
        #expect(!core.stop())
        let error = await hostError { () async throws(HostError) in _ = try await core.evaluate("1") }
        #expect(error?.code == .disposed)
    }
}
