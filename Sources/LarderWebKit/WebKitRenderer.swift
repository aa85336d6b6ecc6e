@_exported import LarderRendering
import CWebKitGTK
import LarderCache
import LarderFormat
import LarderHost

/// A `JourneyRenderer` on a real web engine: one WebKitGTK web view per renderer, fed by the
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
///   `BridgeMessage` for the host; a malformed one is refused (the page's promise rejects
///   with the reason) and recorded in ``refusals``. ``post(_:)`` and ``evaluate(_:)`` talk to
///   the page.
/// - Nothing reaches past the bundle unless `Configuration.remote` allows its origin: every
///   answer of both schemes carries the policy as its Content-Security-Policy, the engine's
///   network session has no route out but an egress filter that enforces the same policy
///   (`WebContext`), and navigations, popups, downloads and form submissions are refused;
///   each attempt is recorded in ``blockedRequests``.
/// - Nothing holds it: dialogs are answered at once (``dialogs``), and a page that is not ready
///   by `Configuration.loadTimeout` (a script that never returns, a document that grows
///   without end) has its web process ended. The web process never outlives the renderer
///   (stop, unload, the deadline, this process ending however it ends), and one that ends by
///   itself (a crash, its memory limit) is reported to the host (`RendererEvent`).
///
/// The GTK glue over LarderRendering's `RendererCore`, which holds the rules above and
/// drives the view through `PageEngine` (`WebKitPage`). Isolated to ``WebKitActor``: every
/// call runs on the GLib main-loop thread and none blocks it. GTK needs a display: set `DISPLAY`, or call ``VirtualDisplay/startIfNeeded(size:timeout:)``
/// before the first renderer starts.
@WebKitActor
public final class WebKitRenderer: JourneyRenderer {
    /// How a renderer is set up.
    public typealias Configuration = RendererConfiguration
    /// Where the renderer is in its life.
    public typealias State = RendererState

    /// How the renderer is set up.
    public nonisolated let configuration: Configuration
    /// What this renderer advertises.
    public nonisolated var capabilities: Set<Manifest.Capability> { configuration.capabilities }
    /// The renderer protocol it implements: 1.
    public nonisolated var protocolVersion: Int { 1 }

    /// The rules, the state and the logs, made on the main loop at first use.
    package private(set) lazy var core = RendererCore(configuration: configuration)

    /// Where the renderer is in its life.
    public var state: State { core.state }
    /// The report of the last successful load.
    public var lastLoad: WebKitLoadReport? { core.lastLoad }
    /// Successful loads, resets and unloads.
    public var loads: Int { core.loads }
    public var resets: Int { core.resets }
    public var unloads: Int { core.unloads }
    /// Web processes that ended by themselves (crashed, killed, over their memory limit).
    public var terminations: Int { core.terminations }
    /// The ids of the sessions shown, in order (the last ``logLimit``).
    public var shownSessions: [String] { core.shownSessions }
    /// Bridge messages refused as malformed, in order (the last ``logLimit``).
    public var refusals: [HostError] { core.refusals }
    /// What content tried past the bundle and was refused, since the renderer started, in
    /// order (the last ``logLimit``).
    public var blockedRequests: [BlockedRequest] { core.blockedRequests }
    /// Dialogs content opened since the renderer started, each answered at once, in order (the
    /// last ``logLimit``).
    public var dialogs: [PageDialog] { core.dialogs }
    /// Uncaught script errors since the renderer started, in order (the last ``logLimit``).
    public var scriptErrors: [ScriptError] { core.scriptErrors }
    /// Every scheme request answered since the renderer started, in order (the last
    /// ``logLimit``).
    public var servedRequests: [ServedRequest] { core.servedRequests }
    /// How many entries each of those lists keeps at most (the oldest go first): a renderer
    /// runs for hours.
    public nonisolated static let logLimit = RendererCore.logLimit

    var webView: WebView?
    /// The web context, taken from the engine's pool at start and given back at stop.
    var context: WebContext?
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
    /// - Throws: `HostError.Code.renderer` naming `display` when GTK has no display;
    ///   `HostError.Code.disposed` after ``stop()``.
    public func start(bridge: RendererBridge) async throws(HostError) {
        try core.requireRunning()
        if webView == nil {
            let engine = try WebEngine.shared()
            let context = try engine.takeContext(memoryLimit: configuration.webProcessMemoryLimit, filtered: !configuration.unfilteredNetwork)
            context.filter.configure(policy: configuration.remote) { [weak self] blocked in
                Task { @WebKitActor in self?.core.refused(blocked) }
            }
            let webView = WebView(context: context, viewport: configuration.viewport, delegate: self)
            webView.setPlacement(placement)
            engine.register(webView.view, to: self)
            self.context = context
            self.webView = webView
            core.attach(WebKitPage(webView), proxy: configuration.unfilteredNetwork ? .direct : .http(context.filter.proxyURI))
        }
        try core.start(bridge: bridge)
    }

    /// Loads the content's entry document and waits until it is ready, hidden unless `visible`
    /// (`RendererCore.load(_:visible:)`). A hidden load keeps the window unmapped.
    ///
    /// A failed load leaves nothing loaded; the page stays in the view as it rendered, for a
    /// look (``screenshot()``, ``evaluate(_:)``), until the next load or unload.
    /// - Throws: `HostError.Code.renderer` whose `HostError.resource` names the bundle path,
    ///   font URL or script that failed (with the cache's error for a missing or corrupt
    ///   object), or says the page was not ready within `Configuration.loadTimeout`;
    ///   `HostError.Code.disposed` after ``stop()``.
    public func load(_ content: RenderContent, visible: Bool) async throws(HostError) {
        try await core.load(content, visible: visible)
    }

    /// Maps the window and tells the page it is visible (`RendererCore.show(_:)`).
    /// - Throws: `HostError.Code.renderer` without loaded content or when the page cannot be
    ///   told; `HostError.Code.disposed` after ``stop()``.
    public func show(_ session: PresentationSession) async throws(HostError) {
        try await core.show(session)
    }

    /// Hides the window and loads the entry document again, hidden, until ready. With nothing
    /// loaded there is nothing to reset.
    /// - Throws: what ``load(_:visible:)`` throws; the content is then unloaded.
    public func reset() async throws(HostError) {
        try await core.reset()
    }

    /// Drops the content and ends the web process, freeing the page's memory; the renderer
    /// stays started and may load again. Does nothing without content or after ``stop()``.
    public func unload() async {
        core.unload()
    }

    /// Ends the web process and destroys the view; every later call throws
    /// `HostError.Code.disposed`.
    public func stop() async {
        guard core.stop() else { return }
        releaseEngine()
    }

    // MARK: Talking to the page

    /// Evaluates JavaScript in the page (its own world) and returns the completion value as
    /// JSON. Works whenever the view exists, loaded or not (a failed page stays for a look).
    /// - Throws: `HostError.Code.renderer` when it throws, has no result in time, or the
    ///   renderer is not started; `HostError.Code.disposed` after ``stop()``.
    public func evaluate(_ script: String) async throws(HostError) -> JSONValue {
        try await core.evaluate(script)
    }

    /// Runs `body` as the body of an async function in the page (its own world), awaits the
    /// promise it returns and gives the settled value as JSON: for questions whose answer
    /// takes time, such as loading a font.
    /// - Throws: `HostError.Code.renderer` when it rejects or does not settle within
    ///   `Configuration.loadTimeout`; `HostError.Code.disposed` after ``stop()``.
    public func callAsyncFunction(_ body: String) async throws(HostError) -> JSONValue {
        try await core.callAsyncFunction(body)
    }

    /// Sends a message to the page: a `larder:message` `CustomEvent` on `window` whose
    /// `detail` is `message`.
    /// - Throws: `HostError.Code.renderer` without loaded content or when the page cannot be
    ///   told.
    public func post(_ message: JSONValue) async throws(HostError) {
        try await core.post(message)
    }

    /// A PNG of the view as it is now, at the viewport's size (hidden or shown).
    /// - Throws: `HostError.Code.renderer` when the engine cannot take it.
    public func screenshot() async throws(HostError) -> [UInt8] {
        try core.requireRunning()
        guard let webView else { throw HostError(.renderer, "the renderer is not started") }
        return try await webView.snapshot(timeout: configuration.loadTimeout).get()
    }

    /// Loads a page by URL (an `http:` page of an allowed origin, for instance) and waits
    /// until it is ready by the same rules as ``load(_:visible:)``; the renderer then holds no
    /// bundle. For benchmarks against a web server.
    package func loadPage(_ url: String, visible: Bool) async throws(HostError) -> WebKitLoadReport {
        try await core.loadPage(url, visible: visible)
    }

    /// Ends the web process whatever is loaded (a page loaded by URL included); the next load
    /// starts a new one. For benchmarks: a web process whose memory cache is emptied before
    /// every load keeps about 1.5 MB a load (see ``clearEngineMemoryCache()``).
    package func endWebProcess() {
        core.endWebProcess()
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
        core.detach()
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
}

/// What one load of a page did (LarderRendering's `PageLoadReport`).
public typealias WebKitLoadReport = PageLoadReport
