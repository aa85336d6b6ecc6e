import CWebKitGTK
import LarderHost
import LarderRendering

/// One WebKit web context, the one owner of its C handle: ephemeral (its own website data
/// manager, so its own network session; no cookies, storage or disk cache written anywhere),
/// with the egress filter as that session's only route out, a memory limit for its web
/// processes, and web processes in WebKitGTK's bubblewrap sandbox.
///
/// - **Network.** The session's proxy is the context's ``EgressFilter`` for every scheme and
///   host (no host exempt, `localhost` and 127.0.0.1 included; set by the renderer's core
///   through ``WebView/setNetworkProxy(_:)`` before anything loads), so the network process reaches
///   nothing the renderer's ``RemotePolicy`` does not allow. DNS prefetching and preconnecting
///   are off in each view's settings (``WebView``).
/// - **Sandbox** (`webkit_web_context_set_sandbox_enabled`): each web process runs under
///   `bwrap --die-with-parent --unshare-pid --unshare-net`: it has no network of its own (only
///   the network process, through the filter, has one), and it dies with this process however
///   this process ends, `SIGKILL` included, instead of being reparented and running on.
/// - **Memory** (`WebKitMemoryPressureSettings`, the `memory-pressure-settings` property): each
///   web process may use ``WebKitRenderer/Configuration/webProcessMemoryLimit`` MiB; past it,
///   and unable to shrink below it, WebKit ends it (`web-process-terminated`, exceeded memory
///   limit). Measured every second on the web process's main thread, so a script that never
///   returns is stopped by the load deadline instead.
/// - **Cache model** `DOCUMENT_BROWSER`: WebKit's memory cache (at most 96 MB per web
///   process, of which a quarter may be resources no page uses) keeps a finished preload until
///   the `@font-face` it warms asks for it, so each font is fetched once; `DOCUMENT_VIEWER`
///   keeps no unused resource and fetches it twice. The back/forward cache is off (``WebView``).
///
/// Contexts are pooled by ``WebEngine``: a renderer takes one when it starts and gives it back
/// when it stops, so a process makes as many as it runs renderers at once.
@WebKitActor
final class WebContext {
    /// The context.
    let context: UnsafeMutablePointer<WebKitWebContext>
    /// Its only route out.
    let filter: EgressFilter
    /// The memory limit of its web processes, in MiB.
    let memoryLimit: Int
    /// Whether the network goes through the filter (always, but for benchmarks).
    let filtered: Bool

    /// Creates a context whose schemes send their requests to ``WebEngine/route(_:)``.
    /// - Parameter filtered: false connects directly (benchmarks only).
    /// - Throws: ``HostError/Code/renderer`` when the egress filter cannot start.
    init(memoryLimit: Int, filtered: Bool = true) throws(HostError) {
        filter = try EgressFilter()
        self.memoryLimit = memoryLimit
        self.filtered = filtered
        let settings = webkit_memory_pressure_settings_new()
        webkit_memory_pressure_settings_set_memory_limit(settings, guint(memoryLimit))
        webkit_memory_pressure_settings_set_kill_threshold(settings, 1.0)
        webkit_memory_pressure_settings_set_poll_interval(settings, 1)
        context = larder_web_context_new(settings)
        webkit_memory_pressure_settings_free(settings)
        webkit_web_context_set_sandbox_enabled(context, 1)
        webkit_web_context_set_cache_model(context, WEBKIT_CACHE_MODEL_DOCUMENT_BROWSER)
        webkit_web_context_set_spell_checking_enabled(context, 0)
        // The network goes through the filter from the first load on: the renderer's core sets
        // the proxy (``PageEngine/setNetworkProxy(_:)``) when it attaches the view, before
        // anything loads.

        let security = webkit_web_context_get_security_manager(context)
        for scheme in [WebEngine.bundleScheme, WebEngine.fontScheme] {
            webkit_web_context_register_uri_scheme(
                context, scheme,
                { request, _ in
                    guard let request else { return }
                    WebKitActor.assumeIsolated { WebEngine.existing?.route(request) }
                }, nil, nil)
            webkit_security_manager_register_uri_scheme_as_secure(security, scheme)
            webkit_security_manager_register_uri_scheme_as_cors_enabled(security, scheme)
        }
        connectDownloads()
    }

    /// A download (a `download` link, a response the engine cannot show) is cancelled at
    /// once and reported by the renderer of its view as a blocked request.
    private func connectDownloads() {
        larder_connect_download_started(
            context,
            { _, download, _ in
                guard let download else { return }
                WebKitActor.assumeIsolated {
                    let uri = webkit_uri_request_get_uri(webkit_download_get_request(download)).map { String(cString: $0) } ?? ""
                    webkit_download_cancel(download)
                    if let view = webkit_download_get_web_view(download) {
                        WebEngine.existing?.renderer(of: view)?.core.refused(BlockedRequest(url: uri, reason: "download"))
                    }
                }
            }, nil, nil)
    }
}
