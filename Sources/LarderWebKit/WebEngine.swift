import CWebKitGTK
import LarderHost
import LarderRendering

/// What the process's renderers share: the check that GTK has a display, a pool of web
/// contexts (``WebContext``: one per renderer running at a time, reused when a renderer stops),
/// and the routing of scheme requests to the renderer whose web view asked:
///
/// - `larder://<bundle-hex>/<path>` and `larder-font://sha256/<hex>`, both registered on every
///   context as *secure* and *CORS-enabled*. Never as *local*: on WebKitGTK 2.50 a local scheme
///   breaks same-origin `fetch()` of the bundle's own files.
///
/// A scheme request names its web view; the engine hands it to the renderer that registered
/// that view, and answers an error for a view nobody owns any more.
@WebKitActor
final class WebEngine {
    /// The schemes' names.
    nonisolated static let bundleScheme = SchemeRoute.bundleScheme
    nonisolated static let fontScheme = SchemeRoute.fontScheme

    private static var instance: WebEngine?

    private var owners: [UnsafeMutableRawPointer: WeakRenderer] = [:]
    /// Contexts no renderer holds, ready for the next.
    private var idle: [WebContext] = []

    /// The engine if it was created.
    static var existing: WebEngine? { instance }

    /// The engine, created on first use.
    /// - Throws: ``HostError/Code/renderer`` when GTK has no display.
    static func shared() throws(HostError) -> WebEngine {
        if let instance { return instance }
        switch MainLoopThread.currentDisplay {
        case .opened:
            break
        case .pending:
            throw HostError(.renderer, "GTK is not initialised yet", resource: "display")
        case .unavailable(let reason):
            throw HostError(.renderer, "the web engine cannot start: \(reason)", resource: "display")
        }
        let engine = WebEngine()
        instance = engine
        return engine
    }

    private init() {}

    /// A context for a renderer that starts: an idle one made the same way, or a new one.
    /// - Parameter filtered: false only for benchmarks (``WebKitRenderer/Configuration/unfilteredNetwork``).
    /// - Throws: ``HostError/Code/renderer`` when a new context's egress filter cannot start.
    func takeContext(memoryLimit: Int, filtered: Bool = true) throws(HostError) -> WebContext {
        if let index = idle.firstIndex(where: { $0.memoryLimit == memoryLimit && $0.filtered == filtered }) { return idle.remove(at: index) }
        return try WebContext(memoryLimit: memoryLimit, filtered: filtered)
    }

    /// Takes back the context of a renderer that stopped (its views destroyed): it refuses all
    /// traffic until the next renderer configures it.
    func giveBack(_ context: WebContext) {
        context.filter.reset()
        idle.append(context)
    }

    /// Sends the scheme requests of `view` to `renderer` until ``unregister(_:)``.
    func register(_ view: UnsafeMutablePointer<WebKitWebView>, to renderer: WebKitRenderer) {
        owners[UnsafeMutableRawPointer(view)] = WeakRenderer(renderer)
    }

    /// Stops sending `view`'s requests anywhere.
    func unregister(_ view: UnsafeMutablePointer<WebKitWebView>) {
        owners[UnsafeMutableRawPointer(view)] = nil
    }

    /// The renderer that registered `view`, if it is still alive.
    func renderer(of view: UnsafeMutablePointer<WebKitWebView>) -> WebKitRenderer? {
        owners[UnsafeMutableRawPointer(view)]?.renderer
    }

    func route(_ pointer: UnsafeMutablePointer<WebKitURISchemeRequest>) {
        let request = SchemeRequest(pointer)
        guard let view = webkit_uri_scheme_request_get_web_view(pointer), let renderer = renderer(of: view) else {
            request.respond(RendererCore.noRenderer)
            return
        }
        renderer.handle(request)
    }
}

/// A renderer the engine does not keep alive.
@WebKitActor
private final class WeakRenderer {
    weak var renderer: WebKitRenderer?
    init(_ renderer: WebKitRenderer) { self.renderer = renderer }
}
