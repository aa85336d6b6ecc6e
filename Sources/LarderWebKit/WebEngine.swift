import CWebKitGTK
import LarderHost

/// The process's one WebKit web context, shared by every ``WebKitRenderer``: ephemeral (no
/// cookies, storage or disk cache written anywhere), WebKit's memory cache on (so a preload
/// and the `@font-face` it warms share one fetch, and a reset finds the entry's files in the
/// page's memory: every `larder:` answer is immutable, its URL naming the content), and the
/// two URI schemes registered once:
///
/// - `larder://<bundle-hex>/<path>` and `larder-font://sha256/<hex>`, both registered as
///   *secure* and *CORS-enabled*. Never as *local*: on WebKitGTK 2.50 a local scheme breaks
///   same-origin `fetch()` of the bundle's own files.
///
/// A scheme request names its web view; the engine hands it to the renderer that registered
/// that view, and answers an error for a view nobody owns any more.
@WebKitActor
final class WebEngine {
    /// The schemes' names.
    nonisolated static let bundleScheme = "larder"
    nonisolated static let fontScheme = "larder-font"

    private static var instance: WebEngine?

    /// The web context.
    let context: UnsafeMutablePointer<WebKitWebContext>
    private var owners: [UnsafeMutableRawPointer: WeakRenderer] = [:]

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

    private init() {
        context = webkit_web_context_new_ephemeral()
        webkit_web_context_set_cache_model(context, WEBKIT_CACHE_MODEL_DOCUMENT_BROWSER)
        webkit_web_context_set_spell_checking_enabled(context, 0)
        let security = webkit_web_context_get_security_manager(context)
        for scheme in [Self.bundleScheme, Self.fontScheme] {
            webkit_web_context_register_uri_scheme(
                context, scheme,
                { request, _ in
                    guard let request else { return }
                    WebKitActor.assumeIsolated { WebEngine.instance?.route(request) }
                }, nil, nil)
            webkit_security_manager_register_uri_scheme_as_secure(security, scheme)
            webkit_security_manager_register_uri_scheme_as_cors_enabled(security, scheme)
        }
    }

    /// Sends the scheme requests of `view` to `renderer` until ``unregister(_:)``.
    func register(_ view: UnsafeMutablePointer<WebKitWebView>, to renderer: WebKitRenderer) {
        owners[UnsafeMutableRawPointer(view)] = WeakRenderer(renderer)
    }

    /// Stops sending `view`'s requests anywhere.
    func unregister(_ view: UnsafeMutablePointer<WebKitWebView>) {
        owners[UnsafeMutableRawPointer(view)] = nil
    }

    private func route(_ pointer: UnsafeMutablePointer<WebKitURISchemeRequest>) {
        let request = SchemeRequest(pointer)
        guard let view = webkit_uri_scheme_request_get_web_view(pointer),
            let renderer = owners[UnsafeMutableRawPointer(view)]?.renderer
        else {
            request.respond(SchemeResponse(status: 410, message: "no renderer owns this web view any more"))
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
