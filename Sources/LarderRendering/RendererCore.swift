import Foundation
import LarderCache
import LarderFormat
import LarderHost

/// A `JourneyRenderer`'s rules without its engine: what loads, when a load is ready and why
/// not, the session's context and visibility, the bridge, the schemes' answers, and the logs,
/// driving one page through a ``PageEngine``.
///
/// - ``load(_:visible:)`` returns once the load finished, `document.fonts.ready` resolved,
///   every `FontFace` is `loaded`, every essential file and font was served without error and
///   no script threw (`LoadVerdict`); otherwise it throws naming the resource.
/// - ``show(_:)`` shows the page and dispatches a `larder:visibility` event with the session;
///   ``reset()`` hides it and loads the entry document again; ``unload()`` ends the web process.
/// - The engine's reports come in through the event methods (``schemeRequest(url:method:)``,
///   ``received(_:on:)``, ``webProcessTerminated(_:)`` and the rest; see ``PageEngine``).
///
/// Not `Sendable`: it lives on the engine's thread with its owner (LarderWebKit's
/// `WebKitRenderer` on the GLib main loop), and its `async` methods run there too
/// (`nonisolated(nonsending)`).
public final class RendererCore {
    /// How the renderer is set up.
    public let configuration: RendererConfiguration
    /// Where the renderer is in its life.
    public internal(set) var state: RendererState = .idle
    /// The report of the last successful load.
    public internal(set) var lastLoad: PageLoadReport?
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
    /// What content tried past the bundle and was refused, in order (the last ``logLimit``).
    public internal(set) var blockedRequests: [BlockedRequest] = []
    /// Dialogs content opened, each answered at once, in order (the last ``logLimit``).
    public internal(set) var dialogs: [PageDialog] = []
    /// Uncaught script errors, in order (the last ``logLimit``).
    public internal(set) var scriptErrors: [ScriptError] = []
    /// Every scheme request answered, in order (the last ``logLimit``).
    public internal(set) var servedRequests: [ServedRequest] = []
    /// How many entries each of those lists keeps at most (the oldest go first): a renderer
    /// runs for hours.
    public static let logLimit = 1000

    /// The page, once attached.
    private(set) var engine: (any PageEngine)?
    var bridge: RendererBridge?
    var content: RenderContent?
    /// The load in progress.
    var attempt: LoadAttempt?
    /// Observer reports already counted for the current document.
    var seenReports: Set<String> = []

    /// Creates a core; nothing runs before ``attach(_:proxy:)`` and ``start(bridge:)``.
    public init(configuration: RendererConfiguration) {
        self.configuration = configuration
    }

    /// Whether a page is attached.
    public var isAttached: Bool { engine != nil }

    /// Drives `engine` from now on, its network routed through `proxy` before anything loads.
    public func attach(_ engine: any PageEngine, proxy: NetworkProxy) {
        engine.setNetworkProxy(proxy)
        self.engine = engine
    }

    /// Lets the page go (its owner destroys it).
    public func detach() {
        engine = nil
    }

    /// Keeps the bridge (starting again replaces it) and leaves ``RendererState/idle``.
    /// - Throws: `HostError.Code.disposed` after ``stop()``.
    public func start(bridge: RendererBridge) throws(HostError) {
        try requireRunning()
        self.bridge = bridge
        if state == .idle { state = .started }
    }

    /// Loads the content's entry document and waits until it is ready, hidden unless `visible`.
    ///
    /// A failed load leaves nothing loaded; the page stays as it rendered, for a look, until
    /// the next load or unload.
    /// - Throws: `HostError.Code.renderer` whose `HostError.resource` names the bundle path,
    ///   font URL or script that failed, or says the page was not ready within
    ///   ``RendererConfiguration/loadTimeout``; `HostError.Code.disposed` after ``stop()``.
    nonisolated(nonsending) public func load(_ content: RenderContent, visible: Bool) async throws(HostError) {
        try requireRunning()
        guard let engine else { throw HostError(.renderer, "load before start: start the renderer first") }
        self.content = content
        state = .started
        engine.setContextScript(PageScripts.context(Self.json(content.contextValues)))
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

    /// Shows the page, gives it the session's context (`window.larder.context` and a
    /// `larder:context` event, also in every page the flow navigates to from here), tells it
    /// it is visible (`larder:visibility` with the session, journey and revision) and records
    /// the session.
    /// - Throws: `HostError.Code.renderer` without loaded content or when the page cannot be
    ///   told; `HostError.Code.disposed` after ``stop()``.
    nonisolated(nonsending) public func show(_ session: PresentationSession) async throws(HostError) {
        try requireRunning()
        guard case .loaded(_, let document) = state, let engine else {
            throw HostError(.renderer, "nothing loaded: load content before showing it", digest: session.bundle)
        }
        engine.setContextScript(PageScripts.context(Self.json(session.contextValues)))
        _ = try await evaluateInPage(PageScripts.contextChange(Self.json(session.contextValues)))
        engine.setVisible(true)
        state = .loaded(visible: true, document: document)
        shownSessions.appendKeepingLast(Self.logLimit, session.id)
        let detail = JSONValue.object([
            "visible": .bool(true), "session": .string(session.id), "journey": .string(session.journey),
            "revision": .int(session.revision),
        ])
        _ = try await evaluateInPage(PageScripts.dispatch("larder:visibility", on: "document", detail: detail.jsonText))
    }

    /// Hides the page and loads the entry document again, hidden, until ready, then tells it
    /// (a `larder:reset` event on the document). With nothing loaded there is nothing to reset.
    /// - Throws: what ``load(_:visible:)`` throws; the content is then unloaded.
    nonisolated(nonsending) public func reset() async throws(HostError) {
        try requireRunning()
        guard let content, case .loaded = state else { return }
        engine?.setVisible(false)
        // The next presentation brings its own context: this one's is not left behind.
        engine?.setContextScript(PageScripts.context(Self.json([:])))
        state = .started
        do throws(HostError) {
            let report = try await performLoad(
                Self.url(of: content.manifest.entry, in: content.bundle), document: content.manifest.entry, visible: false)
            lastLoad = report
            resets += 1
            state = .loaded(visible: false, document: content.manifest.entry)
            _ = try await evaluateInPage(PageScripts.dispatch(PageScripts.resetEvent, on: "document", detail: "{}"))
        } catch {
            self.content = nil
            throw error
        }
    }

    /// Drops the content and ends the web process, freeing the page's memory; the renderer
    /// stays started and may load again. Does nothing without content or after ``stop()``.
    public func unload() {
        guard state != .stopped, content != nil, let engine else { return }
        cancelAttempt(HostError(.cancelled, "the content was unloaded"))
        content = nil
        state = .started
        unloads += 1
        engine.setVisible(false)
        engine.terminateWebProcess()
    }

    /// Stops for good: every later call throws `HostError.Code.disposed`. The owner then ends
    /// the web process and destroys the page.
    /// - Returns: false when it was stopped already.
    public func stop() -> Bool {
        guard state != .stopped else { return false }
        state = .stopped
        cancelAttempt(HostError(.disposed, "the renderer was stopped"))
        content = nil
        bridge = nil
        return true
    }

    /// Evaluates JavaScript in the page (its own world) and returns the completion value as
    /// JSON. Works whenever the page exists, loaded or not (a failed page stays for a look).
    /// - Throws: `HostError.Code.renderer` when it throws, has no result in time, or the
    ///   renderer is not started; `HostError.Code.disposed` after ``stop()``.
    nonisolated(nonsending) public func evaluate(_ script: String) async throws(HostError) -> JSONValue {
        try requireRunning()
        return try await evaluateInPage(script)
    }

    /// Runs `body` as the body of an async function in the page (its own world), awaits the
    /// promise it returns and gives the settled value as JSON.
    /// - Throws: `HostError.Code.renderer` when it rejects or does not settle within
    ///   ``RendererConfiguration/loadTimeout``; `HostError.Code.disposed` after ``stop()``.
    nonisolated(nonsending) public func callAsyncFunction(_ body: String) async throws(HostError) -> JSONValue {
        try requireRunning()
        guard let engine else { throw HostError(.renderer, "the renderer is not started") }
        return try Self.parse(await engine.callAsyncJavaScript(body, world: nil, timeout: configuration.loadTimeout).get())
    }

    /// Sends a message to the page: a `larder:message` `CustomEvent` on `window` whose
    /// `detail` is `message`.
    /// - Throws: `HostError.Code.renderer` without loaded content or when the page cannot be
    ///   told.
    nonisolated(nonsending) public func post(_ message: JSONValue) async throws(HostError) {
        try requireRunning()
        guard case .loaded = state else { throw HostError(.renderer, "nothing loaded: there is no page to tell") }
        _ = try await evaluateInPage(PageScripts.dispatch("larder:message", on: "window", detail: message.jsonText))
    }

    /// Loads a page by URL and waits until it is ready by the same rules as
    /// ``load(_:visible:)``; the renderer then holds no bundle. For benchmarks.
    nonisolated(nonsending) package func loadPage(_ url: String, visible: Bool) async throws(HostError) -> PageLoadReport {
        try requireRunning()
        guard engine != nil else { throw HostError(.renderer, "load before start: start the renderer first") }
        content = nil
        state = .started
        let report = try await performLoad(url, document: url, visible: visible)
        lastLoad = report
        state = .loaded(visible: visible, document: url)
        return report
    }

    /// Ends the web process whatever is loaded (a page loaded by URL included). For benchmarks.
    package func endWebProcess() {
        guard state != .stopped, let engine else { return }
        cancelAttempt(HostError(.cancelled, "the web process was ended"))
        content = nil
        state = .started
        engine.terminateWebProcess()
    }

    /// Throws `HostError.Code.disposed` after ``stop()``.
    public func requireRunning() throws(HostError) {
        if state == .stopped { throw HostError(.disposed, "the renderer was stopped") }
    }

    nonisolated(nonsending) func evaluateInPage(_ script: String) async throws(HostError) -> JSONValue {
        guard let engine else { throw HostError(.renderer, "the renderer is not started") }
        return try Self.parse(await engine.evaluateJavaScript(script, world: nil, timeout: configuration.loadTimeout).get())
    }

    /// The context as the page's `window.larder.context`: a JSON object of any values.
    package static func json(_ context: [String: JSONValue]) -> String {
        JSONValue.object(context).jsonText
    }

    private static func parse(_ bytes: [UInt8]) throws(HostError) -> JSONValue {
        do { return try JSONValue.parse(bytes) } catch {
            throw HostError(.renderer, "the page's answer is not JSON: \(error.message)")
        }
    }

    /// `larder://<bundle-hex>/<path>`, each path segment percent-encoded.
    package static func url(of path: String, in bundle: Digest) -> String {
        "\(SchemeRoute.bundleScheme)://\(bundle.hex)/" + path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#", ";"])) ?? String($0)
        }.joined(separator: "/")
    }
}

extension JSONValue {
    /// The canonical JSON text, for embedding in a script.
    package var jsonText: String { String(decoding: canonicalBytes, as: UTF8.self) }
}

extension Array {
    /// Appends `element`, dropping the oldest so that at most `limit` stay.
    /// - Complexity: O(1) amortised: the oldest tenth goes at once when the limit is passed.
    package mutating func appendKeepingLast(_ limit: Int, _ element: Element) {
        append(element)
        if count > limit { removeFirst(Swift.max(count - limit, limit / 10)) }
    }
}
