import LarderHost

/// The engine under a ``RendererCore``: one web view, driven on the engine's own thread (the
/// thread every call to the core and to the engine runs on).
///
/// Each requirement names the WebKitGTK call LarderWebKit's glue makes (`WebKitPage`) and its
/// WKWebView counterpart, so an adapter for Apple platforms maps one to one:
///
/// | the core asks | WebKitGTK | WKWebView |
/// |---|---|---|
/// | ``load(_:)`` | `webkit_web_view_load_uri` | `load(_:)` |
/// | ``evaluateJavaScript(_:world:timeout:)`` | `webkit_web_view_evaluate_javascript` | `evaluateJavaScript(_:in:in:completionHandler:)` |
/// | ``callAsyncJavaScript(_:world:timeout:)`` | `webkit_web_view_call_async_javascript_function` | `callAsyncJavaScript(_:arguments:in:in:completionHandler:)` |
/// | ``setContextScript(_:)`` | `webkit_user_content_manager_add_script` | `WKUserContentController.addUserScript(_:)` |
/// | ``setNetworkProxy(_:)`` | network proxy settings (`webkit_website_data_manager_set_network_proxy_settings`) | `WKWebsiteDataStore.proxyConfigurations` |
/// | ``terminateWebProcess()`` | `webkit_web_view_terminate_web_process` | releasing the view (no public call) |
///
/// What the engine reports goes to the core's event methods:
///
/// | the engine reports | WebKitGTK | WKWebView |
/// |---|---|---|
/// | a scheme request: ``RendererCore/schemeRequest(url:method:)`` | URI scheme request (`webkit_web_context_register_uri_scheme`) | `WKURLSchemeHandler` |
/// | a script message with reply: ``RendererCore/received(_:on:)`` | `script-message-with-reply-received` | `WKScriptMessageHandlerWithReply` |
/// | web-process-terminated: ``RendererCore/webProcessTerminated(_:)`` | `web-process-terminated` | `webViewWebContentProcessDidTerminate(_:)` |
/// | ``RendererCore/loadCommitted(_:)``, ``RendererCore/loadFinished()`` | `load-changed` | `webView(_:didCommit:)`, `webView(_:didFinish:)` |
/// | ``RendererCore/loadFailed(_:message:cancelled:)`` | `load-failed` | `webView(_:didFail:withError:)` |
/// | ``RendererCore/allows(_:)`` | `decide-policy` | `webView(_:decidePolicyFor:decisionHandler:)` |
/// | ``RendererCore/answered(_:)``, ``RendererCore/refused(_:)`` | `script-dialog`, `print`, `create`, downloads | `WKUIDelegate`, `WKDownloadDelegate` |
public protocol PageEngine: AnyObject {
    /// Starts loading `url`: WebKitGTK's `load_uri` (`webkit_web_view_load_uri`), WKWebView's
    /// `load(_:)`.
    func load(_ url: String)

    /// Whether a load is under way, from the moment ``load(_:)`` is called
    /// (`webkit_web_view_is_loading`; WKWebView's `isLoading`).
    var isLoading: Bool { get }

    /// Whether the web process answers (`webkit_web_view_get_is_web_process_responsive`;
    /// WKWebView has none and says true).
    var isWebProcessResponsive: Bool { get }

    /// Evaluates `script` and gives its completion value as JSON text (`undefined` as `null`):
    /// WebKitGTK's `evaluate_javascript` (`webkit_web_view_evaluate_javascript`), WKWebView's
    /// `evaluateJavaScript`.
    /// - Parameters:
    ///   - world: the script world (WKWebView's `WKContentWorld`), nil for the page's.
    ///   - timeout: how long to wait for the result.
    ///   - script: the JavaScript source to run.
    /// - Returns: the JSON bytes, or `HostError.Code.renderer` when it throws or times out.
    nonisolated(nonsending) func evaluateJavaScript(_ script: String, world: String?, timeout: Duration) async -> Result<[UInt8], HostError>

    /// Runs `body` as an async function, awaits the promise it returns and gives the settled
    /// value as JSON text: WebKitGTK's `call_async_javascript`
    /// (`webkit_web_view_call_async_javascript_function`), WKWebView's `callAsyncJavaScript`.
    /// - Parameters:
    ///   - world: the script world, nil for the page's.
    ///   - timeout: how long to wait for the promise to settle.
    ///   - body: the body of an async function, which may `await` and `return`.
    /// - Returns: the JSON bytes, or `HostError.Code.renderer` when it rejects or times out.
    nonisolated(nonsending) func callAsyncJavaScript(_ body: String, world: String?, timeout: Duration) async -> Result<[UInt8], HostError>

    /// Makes every document loaded from now on run `source` at document start in its top
    /// frame, replacing the script set before (a user script: `webkit_user_script_new`,
    /// WKWebView's `WKUserScript`).
    func setContextScript(_ source: String)

    /// Shows the page (mapped, `visibilityState` `visible`) or hides it (laid out at its size,
    /// `hidden`): `gtk_widget_show`/`gtk_widget_hide`, WKWebView's `isHidden`.
    func setVisible(_ visible: Bool)

    /// Ends the web process, freeing the page's memory; the next load starts a new one
    /// (`webkit_web_view_terminate_web_process`).
    func terminateWebProcess()

    /// Routes the page's network through `proxy`: WebKitGTK's network proxy settings
    /// (`webkit_website_data_manager_set_network_proxy_settings`), WKWebView's
    /// `WKWebsiteDataStore.proxyConfigurations`.
    func setNetworkProxy(_ proxy: NetworkProxy)

    /// Waits for one callback with a deadline on the engine's own loop (`g_timeout_add_full`;
    /// on Apple platforms the main queue): `start` gets the completion to keep, and whichever
    /// comes first, its ``PageCompletion/finish(_:)`` or the deadline, ends the wait once.
    /// - Parameters:
    ///   - what: what is awaited, for the timeout's error.
    ///   - timeout: the deadline from now.
    ///   - start: starts the work; runs before this returns.
    nonisolated(nonsending) func wait(
        for what: String, timeout: Duration, start: (any PageCompletion) -> Void
    ) async -> Result<[UInt8], HostError>
}

/// The end of one ``PageEngine/wait(for:timeout:start:)``: only the first outcome counts.
public protocol PageCompletion: AnyObject {
    /// Delivers the outcome; later calls (or calls after the deadline) do nothing.
    func finish(_ outcome: Result<[UInt8], HostError>)
}

/// Where a page's network goes.
public enum NetworkProxy: Sendable, Equatable {
    /// Straight out (benchmarks only: nothing then enforces the remote policy on the network).
    case direct
    /// Through the HTTP proxy at this URI, for every scheme and host (`EgressFilter`).
    case http(String)
}

/// Why a web process ended.
public enum PageTermination: Sendable, Equatable {
    /// The renderer asked (an unload, a stop, a deadline).
    case requested
    /// It went over its memory limit.
    case exceededMemoryLimit
    /// It crashed or was killed.
    case crashed
}

/// A navigation the engine asks about.
public struct NavigationRequest: Sendable, Equatable {
    /// What kind of navigation.
    public enum Kind: Sendable, Equatable {
        /// A frame (the top one or an iframe) goes to `uri`: a link, `location`, a meta refresh.
        case navigation
        /// A form is submitted to `uri`.
        case formSubmission
        /// The content asks for a new window (`window.open`, `target=_blank`).
        case newWindow
    }

    /// Where it goes.
    public var uri: String
    /// What kind it is.
    public var kind: Kind

    /// Creates a request.
    public init(uri: String, kind: Kind) {
        self.uri = uri
        self.kind = kind
    }
}
