import Foundation
import CWebKitGTK
import LarderCache
import LarderFormat
import LarderHost

/// A ``JourneyRenderer`` on a real web engine: one WebKitGTK web view per renderer, fed by the
/// `larder://<bundle-hex>/<path>` scheme (the leased bundle's verified bytes) and the
/// `larder-font://sha256/<hex>` scheme (fonts resolved through the cache).
///
/// - ``start(bridge:)`` creates the view (the host runs it beside the configuration fetch).
/// - ``load(_:visible:)`` returns once the load finished, `document.fonts.ready` resolved,
///   every `FontFace` is `loaded`, every essential file and font was served without error and
///   no script threw; otherwise it throws naming the resource. A hidden load keeps the window
///   unmapped: the page is laid out at the viewport's size and sees
///   `document.visibilityState == "hidden"`.
/// - ``show(_:)`` maps the window (the page gets `visibilitychange`) and dispatches a
///   `larder:visibility` event with the session; ``reset()`` hides it and loads the entry
///   document again; ``unload()`` ends the web process (its memory is freed; a later load starts
///   a new one); ``stop()`` destroys the view.
/// - `window.webkit.messageHandlers.larder.postMessage(...)` in the page becomes a
///   ``BridgeMessage`` for the host; a malformed one is refused (the page's promise rejects
///   with the reason) and recorded in ``refusals``. ``post(_:)`` and ``evaluate(_:)`` talk to
///   the page.
/// - Nothing reaches past the bundle unless ``Configuration/remote`` allows its origin: every
///   answer of both schemes carries the policy as its Content-Security-Policy, the engine's
///   network session has no route out but an egress filter that enforces the same policy
///   (``WebContext``), and navigations, popups, downloads and form submissions are refused;
///   each attempt is recorded in ``blockedRequests``.
/// - Nothing holds it: dialogs are answered at once (``dialogs``), and a page that is not ready
///   by ``Configuration/loadTimeout`` (a script that never returns, a document that grows
///   without end) has its web process ended. The web process never outlives the renderer
///   (stop, unload, the deadline, this process ending however it ends), and one that ends by
///   itself (a crash, its memory limit) is reported to the host (``RendererEvent``).
///
/// Isolated to ``WebKitActor``: every call runs on the GLib main-loop thread and none blocks
/// it. GTK needs a display: set `DISPLAY`, or call ``VirtualDisplay/startIfNeeded(size:timeout:)``
/// before the first renderer starts.
@WebKitActor
public final class WebKitRenderer: JourneyRenderer {
    /// How a renderer is set up.
    public struct Configuration: Sendable {
        /// The page's size in CSS pixels.
        public var viewport: Viewport
        /// What the renderer advertises; the default gets prepared presentation.
        public var capabilities: Set<Manifest.Capability>
        /// The longest a load (or a reset's load) may take to become ready.
        public var loadTimeout: Duration
        /// Remote origins content may reach; none by default.
        public var remote: RemotePolicy
        /// The memory a web process may use, in MiB (WebKit's memory pressure settings): past
        /// it, and unable to shrink below it, the engine ends the process.
        public var webProcessMemoryLimit: Int
        /// The network session connects directly, without the egress filter (the policy is
        /// then only the Content-Security-Policy and the navigation checks). For benchmarks
        /// that time a web server against the schemes, and nothing else.
        package var unfilteredNetwork = false

        /// Creates a configuration.
        public init(
            viewport: Viewport = .phone, capabilities: Set<Manifest.Capability> = [.prepare, .visibility],
            loadTimeout: Duration = .seconds(10), remote: RemotePolicy = .blockAll, webProcessMemoryLimit: Int = 1024
        ) {
            self.viewport = viewport
            self.capabilities = capabilities
            self.loadTimeout = loadTimeout
            self.remote = remote
            self.webProcessMemoryLimit = max(webProcessMemoryLimit, 64)
        }
    }

    /// Where the renderer is in its life.
    public enum State: Sendable, Equatable {
        /// Not started.
        case idle
        /// Started, nothing loaded (or the last load failed).
        case started
        /// Content is ready; `document` is the bundle path of the page shown (the entry after a
        /// load or reset, then where the content navigated).
        case loaded(visible: Bool, document: String)
        /// Stopped for good.
        case stopped
    }

    /// How the renderer is set up.
    public nonisolated let configuration: Configuration
    /// What this renderer advertises.
    public nonisolated var capabilities: Set<Manifest.Capability> { configuration.capabilities }
    /// The renderer protocol it implements: 1.
    public nonisolated var protocolVersion: Int { 1 }

    /// Where the renderer is in its life.
    public internal(set) var state: State = .idle
    /// The report of the last successful load.
    public internal(set) var lastLoad: WebKitLoadReport?
    /// Successful loads, resets and unloads.
    public internal(set) var loads = 0
    public internal(set) var resets = 0
    public internal(set) var unloads = 0
    /// Web processes that ended by themselves (crashed, killed, over their memory limit).
    public internal(set) var terminations = 0
    /// The ids of the sessions shown, in order (the last ``logLimit``).
    public internal(set) var shownSessions: [String] = []
    /// Bridge messages refused as malformed, in order (the last ``logLimit``).
    public internal(set) var refusals: [HostError] = []
    /// What content tried past the bundle and was refused, since the renderer started, in
    /// order (the last ``logLimit``).
    public internal(set) var blockedRequests: [BlockedRequest] = []
    /// Dialogs content opened since the renderer started, each answered at once, in order (the
    /// last ``logLimit``).
    public internal(set) var dialogs: [PageDialog] = []
    /// Uncaught script errors since the renderer started, in order (the last ``logLimit``).
    public internal(set) var scriptErrors: [ScriptError] = []
    /// Every scheme request answered since the renderer started, in order (the last
    /// ``logLimit``).
    public internal(set) var servedRequests: [ServedRequest] = []
    /// How many entries each of those lists keeps at most (the oldest go first): a renderer
    /// runs for hours.
    public nonisolated static let logLimit = 1000

    var webView: WebView?
    /// The web context, taken from the engine's pool at start and given back at stop.
    var context: WebContext?
    var bridge: RendererBridge?
    var content: RenderContent?
    /// The load in progress.
    var attempt: LoadAttempt?
    /// Observer reports already counted for the current document.
    var seenReports: Set<String> = []
    /// Where the web view shows while visible, when a view gave a place
    /// (``setPlacement(_:)``); its own window otherwise.
    var placement: (any WebViewPlacement)?

    /// Creates a renderer; nothing starts before ``start(bridge:)``.
    public nonisolated init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    isolated deinit { releaseEngine() }

    // MARK: JourneyRenderer

    /// Creates the web view (once) and keeps the bridge; starting again replaces the bridge.
    /// - Throws: ``HostError/Code/renderer`` naming `display` when GTK has no display;
    ///   ``HostError/Code/disposed`` after ``stop()``.
    public func start(bridge: RendererBridge) async throws(HostError) {
        try requireRunning()
        self.bridge = bridge
        if webView == nil {
            let engine = try WebEngine.shared()
            let context = try engine.takeContext(memoryLimit: configuration.webProcessMemoryLimit, filtered: !configuration.unfilteredNetwork)
            context.filter.configure(policy: configuration.remote) { [weak self] blocked in
                Task { @WebKitActor in self?.note(blocked) }
            }
            let webView = WebView(context: context, viewport: configuration.viewport, delegate: self)
            webView.setPlacement(placement)
            engine.register(webView.view, to: self)
            self.context = context
            self.webView = webView
        }
        if state == .idle { state = .started }
    }

    /// Loads the content's entry document and waits until it is ready (see the type's
    /// description), hidden unless `visible`.
    ///
    /// A failed load leaves nothing loaded; the page stays in the view as it rendered, for a
    /// look (``screenshot()``, ``evaluate(_:)``), until the next load or unload.
    /// - Throws: ``HostError/Code/renderer`` whose ``HostError/resource`` names the bundle path,
    ///   font URL or script that failed (with the cache's error for a missing or corrupt
    ///   object), or says the page was not ready within ``Configuration/loadTimeout``;
    ///   ``HostError/Code/disposed`` after ``stop()``.
    public func load(_ content: RenderContent, visible: Bool) async throws(HostError) {
        try requireRunning()
        guard webView != nil else { throw HostError(.renderer, "load before start: start the renderer first") }
        self.content = content
        state = .started
        webView?.setPageContext(Self.json(content.contextValues))
        let url = Self.url(of: content.manifest.entry, in: content.bundle)
        do throws(HostError) {
            let report = try await performLoad(url, document: content.manifest.entry, visible: visible)
            guard self.content?.lease === content.lease else { throw HostError(.cancelled, "the content was replaced during the load") }
            lastLoad = report
            loads += 1
            state = .loaded(visible: visible, document: content.manifest.entry)
        } catch {
            if self.content?.lease === content.lease { self.content = nil }
            if state != .stopped { state = .started }
            throw error
        }
    }

    /// Maps the window, gives the page the session's context (`window.larder.context` and a
    /// `larder:context` event, also in every page the flow navigates to from here), tells it
    /// it is visible (`larder:visibility` with the session, journey and revision) and records
    /// the session.
    /// - Throws: ``HostError/Code/renderer`` without loaded content or when the page cannot be
    ///   told; ``HostError/Code/disposed`` after ``stop()``.
    public func show(_ session: PresentationSession) async throws(HostError) {
        try requireRunning()
        guard case .loaded(_, let document) = state, let webView else {
            throw HostError(.renderer, "nothing loaded: load content before showing it", digest: session.bundle)
        }
        webView.setPageContext(Self.json(session.contextValues))
        _ = try await evaluateInPage(PageScripts.contextChange(Self.json(session.contextValues)))
        webView.setVisible(true)
        state = .loaded(visible: true, document: document)
        shownSessions.appendKeepingLast(Self.logLimit, session.id)
        let detail = JSONValue.object([
            "visible": .bool(true), "session": .string(session.id), "journey": .string(session.journey),
            "revision": .int(session.revision),
        ])
        _ = try await evaluateInPage(PageScripts.dispatch("larder:visibility", on: "document", detail: detail.jsonText))
    }

    /// Hides the window and loads the entry document again, hidden, until ready. With nothing
    /// loaded there is nothing to reset.
    /// - Throws: what ``load(_:visible:)`` throws; the content is then unloaded.
    public func reset() async throws(HostError) {
        try requireRunning()
        guard let content, case .loaded = state else { return }
        webView?.setVisible(false)
        // The next presentation brings its own context: this one's is not left behind.
        webView?.setPageContext(Self.json([:]))
        state = .started
        do throws(HostError) {
            let report = try await performLoad(
                Self.url(of: content.manifest.entry, in: content.bundle), document: content.manifest.entry, visible: false)
            lastLoad = report
            resets += 1
            state = .loaded(visible: false, document: content.manifest.entry)
        } catch {
            self.content = nil
            throw error
        }
    }

    /// Drops the content and ends the web process, freeing the page's memory; the renderer
    /// stays started and may load again. Does nothing without content or after ``stop()``.
    public func unload() async {
        guard state != .stopped, content != nil, let webView else { return }
        cancelAttempt(HostError(.cancelled, "the content was unloaded"))
        content = nil
        state = .started
        unloads += 1
        webView.setVisible(false)
        webView.terminateWebProcess()
    }

    /// Ends the web process and destroys the view; every later call throws
    /// ``HostError/Code/disposed``.
    public func stop() async {
        guard state != .stopped else { return }
        state = .stopped
        cancelAttempt(HostError(.disposed, "the renderer was stopped"))
        content = nil
        bridge = nil
        releaseEngine()
    }

    // MARK: Talking to the page

    /// Evaluates JavaScript in the page (its own world) and returns the completion value as
    /// JSON. Works whenever the view exists, loaded or not (a failed page stays for a look).
    /// - Throws: ``HostError/Code/renderer`` when it throws, has no result in time, or the
    ///   renderer is not started; ``HostError/Code/disposed`` after ``stop()``.
    public func evaluate(_ script: String) async throws(HostError) -> JSONValue {
        try requireRunning()
        return try await evaluateInPage(script)
    }

    /// Runs `body` as the body of an async function in the page (its own world), awaits the
    /// promise it returns and gives the settled value as JSON: for questions whose answer
    /// takes time, such as loading a font.
    /// - Throws: ``HostError/Code/renderer`` when it rejects or does not settle within
    ///   ``Configuration/loadTimeout``; ``HostError/Code/disposed`` after ``stop()``.
    public func callAsyncFunction(_ body: String) async throws(HostError) -> JSONValue {
        try requireRunning()
        guard let webView else { throw HostError(.renderer, "the renderer is not started") }
        return try Self.parse(await webView.callAsync(body, world: nil, timeout: configuration.loadTimeout).get())
    }

    /// Sends a message to the page: a `larder:message` `CustomEvent` on `window` whose
    /// `detail` is `message`.
    /// - Throws: ``HostError/Code/renderer`` without loaded content or when the page cannot be
    ///   told.
    public func post(_ message: JSONValue) async throws(HostError) {
        try requireRunning()
        guard case .loaded = state else { throw HostError(.renderer, "nothing loaded: there is no page to tell") }
        _ = try await evaluateInPage(PageScripts.dispatch("larder:message", on: "window", detail: message.jsonText))
    }

    /// A PNG of the view as it is now, at the viewport's size (hidden or shown).
    /// - Throws: ``HostError/Code/renderer`` when the engine cannot take it.
    public func screenshot() async throws(HostError) -> [UInt8] {
        try requireRunning()
        guard let webView else { throw HostError(.renderer, "the renderer is not started") }
        return try await webView.snapshot(timeout: configuration.loadTimeout).get()
    }

    /// Loads a page by URL (an `http:` page of an allowed origin, for instance) and waits
    /// until it is ready by the same rules as ``load(_:visible:)``; the renderer then holds no
    /// bundle. For benchmarks against a web server.
    package func loadPage(_ url: String, visible: Bool) async throws(HostError) -> WebKitLoadReport {
        try requireRunning()
        guard webView != nil else { throw HostError(.renderer, "load before start: start the renderer first") }
        content = nil
        state = .started
        let report = try await performLoad(url, document: url, visible: visible)
        lastLoad = report
        state = .loaded(visible: visible, document: url)
        return report
    }

    /// Ends the web process whatever is loaded (a page loaded by URL included); the next load
    /// starts a new one. For benchmarks: a web process whose memory cache is emptied before
    /// every load keeps about 1.5 MB a load (see ``clearEngineMemoryCache()``).
    package func endWebProcess() {
        guard state != .stopped, let webView else { return }
        cancelAttempt(HostError(.cancelled, "the web process was ended"))
        content = nil
        state = .started
        webView.terminateWebProcess()
    }

    /// Empties WebKit's memory cache, so the next load fetches every file through the schemes
    /// (or the server) again. For benchmarks that measure loading, not WebKit's cache. WebKit
    /// 2.50 does not give all of it back: a web process that loads the same pages with the
    /// cache emptied before each load grows by about 1.5 MB a load (236 to 457 MB over 180
    /// loads of the three samples), one that does not stays at about 200 MB.
    package func clearEngineMemoryCache() async throws(HostError) {
        guard let webView else { throw HostError(.renderer, "the renderer is not started") }
        _ = try await webView.clearMemoryCache(timeout: configuration.loadTimeout).get()
    }

    // MARK: Internals

    /// Ends the web process, destroys the view and gives the context back to the engine.
    private func releaseEngine() {
        if let webView {
            WebEngine.existing?.unregister(webView.view)
            webView.terminateWebProcess()
            webView.destroy()
            self.webView = nil
        }
        if let context {
            WebEngine.existing?.giveBack(context)
            self.context = nil
        }
    }

    func requireRunning() throws(HostError) {
        if state == .stopped { throw HostError(.disposed, "the renderer was stopped") }
    }

    func evaluateInPage(_ script: String) async throws(HostError) -> JSONValue {
        guard let webView else { throw HostError(.renderer, "the renderer is not started") }
        return try Self.parse(await webView.evaluate(script, world: nil, timeout: configuration.loadTimeout).get())
    }

    /// A context as the JSON object the page reads.
    /// The context as the page's `window.larder.context`: a JSON object of any values.
    nonisolated static func json(_ context: [String: JSONValue]) -> String {
        JSONValue.object(context).jsonText
    }

    private static func parse(_ bytes: [UInt8]) throws(HostError) -> JSONValue {
        do { return try JSONValue.parse(bytes) } catch {
            throw HostError(.renderer, "the page's answer is not JSON: \(error.message)")
        }
    }

    /// `larder://<bundle-hex>/<path>`, each path segment percent-encoded.
    nonisolated static func url(of path: String, in bundle: Digest) -> String {
        "\(WebEngine.bundleScheme)://\(bundle.hex)/" + path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#", ";"])) ?? String($0)
        }.joined(separator: "/")
    }
}

extension JSONValue {
    /// The canonical JSON text, for embedding in a script.
    var jsonText: String { String(decoding: canonicalBytes, as: UTF8.self) }
}
