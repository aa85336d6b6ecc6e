import CWebKitGTK
import LarderFormat
import LarderHost
import LarderRendering

/// What a ``WebView`` reports, on the main loop.
@WebKitActor
protocol WebViewDelegate: AnyObject {
    /// `load-changed`.
    func webView(_ view: WebView, loadChanged event: WebKitLoadEvent, uri: String)
    /// `load-failed`: the main document failed (cancellations included).
    func webView(_ view: WebView, loadFailed uri: String, message: String, cancelled: Bool)
    /// `decide-policy` for a navigation (of any frame), a form submission or a new window:
    /// true to let it happen (a new window never opens, whatever the answer).
    func webView(_ view: WebView, allows navigation: NavigationRequest) -> Bool
    /// Something the content did that was refused without asking (a response that would be a
    /// download, a dialog answered at once): to report.
    func webView(_ view: WebView, refused blocked: BlockedRequest)
    func webView(_ view: WebView, answered dialog: PageDialog)
    /// A script message on `channel`: its JSON text (nil when the value has no JSON form).
    /// - Returns: nil to accept, or the message of the error the page's promise rejects with.
    func webView(_ view: WebView, received json: [UInt8]?, on channel: String) -> String?
    /// `web-process-terminated`.
    func webView(_ view: WebView, webProcessTerminated reason: WebKitWebProcessTerminationReason)
}

/// One WebKit web view in its own GTK toplevel window, with its user content manager; the one
/// owner of those C handles.
///
/// The window is realized at the viewport's size and stays unmapped while hidden, so a hidden
/// page is laid out at its final size and sees `document.visibilityState == "hidden"`;
/// ``setVisible(_:)`` maps it (the page gets a `visibilitychange`).
@WebKitActor
final class WebView {
    /// The view.
    let view: UnsafeMutablePointer<WebKitWebView>
    /// Its own toplevel window, unmapped while hidden (WebViewPlacement.swift).
    let window: UnsafeMutablePointer<GtkWidget>
    private let manager: UnsafeMutablePointer<WebKitUserContentManager>
    private let target: SignalTarget
    private(set) var destroyed = false
    /// The page-world script that sets `window.larder.context` (``setContextScript(_:)``).
    private var contextScript: OpaquePointer?
    /// Where the view shows while visible instead of its own window, and where it sits now
    /// (WebViewPlacement.swift).
    var placement: (any WebViewPlacement)?
    var placedIn: (any WebViewPlacement)?
    /// Whether the content was last asked to be visible.
    var wantsVisible = false

    /// Creates the view and window.
    /// - Parameters:
    ///   - context: the web context to use.
    ///   - viewport: the view's size in CSS pixels.
    ///   - delegate: who hears about loads, navigations and messages (held weakly).
    init(context: WebContext, viewport: Viewport, delegate: WebViewDelegate) {
        manager = webkit_user_content_manager_new()
        let observer = webkit_user_script_new_for_world(
            PageScripts.observer, WEBKIT_USER_CONTENT_INJECT_ALL_FRAMES, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START,
            PageScripts.world, nil, nil)
        webkit_user_content_manager_add_script(manager, observer)
        webkit_user_script_unref(observer)

        view = larder_web_view_new(context.context, manager)
        g_object_ref_sink(view)
        target = SignalTarget()
        target.delegate = delegate

        let settings = webkit_web_view_get_settings(view)
        webkit_settings_set_hardware_acceleration_policy(settings, WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER)
        // Every window.open reaches decide-policy (refused and reported there), not only those
        // that follow a click: the popup blocker would drop the rest without a word.
        webkit_settings_set_javascript_can_open_windows_automatically(settings, 1)
        webkit_settings_set_enable_page_cache(settings, 0)
        webkit_settings_set_enable_developer_extras(settings, 0)
        webkit_settings_set_media_playback_requires_user_gesture(settings, 1)
        Self.turnOff(Self.speculativeConnections, in: settings)

        window = gtk_window_new(GTK_WINDOW_TOPLEVEL)
        gtk_window_set_default_size(larder_window(window), gint(viewport.width), gint(viewport.height))
        gtk_window_set_resizable(larder_window(window), 0)
        gtk_container_add(larder_container(window), larder_widget(view))
        gtk_widget_show(larder_widget(view))
        gtk_widget_realize(window)

        connectSignals()
        webkit_user_content_manager_register_script_message_handler_with_reply(manager, PageScripts.bridgeChannel, nil)
        webkit_user_content_manager_register_script_message_handler_with_reply(
            manager, PageScripts.engineChannel, PageScripts.world)
    }

    isolated deinit { destroy() }

    /// The engine's own connections ahead of need, all off: `<link rel=dns-prefetch>` (a DNS
    /// query for any host a page names), `<link rel=preconnect>` (a TCP connection, a TLS
    /// ClientHello), preconnects from 103 Early Hints, and `<link rel=prefetch>`.
    static let speculativeConnections = ["LinkDNSPrefetch", "LinkPreconnect", "LinkPreconnectEarlyHints", "LinkPrefetch"]

    /// Turns the WebKit features with these identifiers off (`webkit_settings_set_feature_enabled`).
    private static func turnOff(_ identifiers: [String], in settings: UnsafeMutablePointer<WebKitSettings>?) {
        let features = webkit_settings_get_all_features()
        defer { webkit_feature_list_unref(features) }
        for index in 0..<webkit_feature_list_get_length(features) {
            guard let feature = webkit_feature_list_get(features, index), let identifier = webkit_feature_get_identifier(feature),
                identifiers.contains(String(cString: identifier))
            else { continue }
            webkit_settings_set_feature_enabled(settings, feature, 0)
        }
    }

    /// The view's current URI (`webkit_web_view_get_uri`).
    var uri: String? { webkit_web_view_get_uri(view).map { String(cString: $0) } }

    /// Whether a load is still under way (`webkit_web_view_is_loading`): true from the moment
    /// ``load(_:)`` is called, even while an earlier navigation is still committing.
    var isLoading: Bool { webkit_web_view_is_loading(view) != 0 }

    /// Whether the web process answers (`webkit_web_view_get_is_web_process_responsive`):
    /// false while a script keeps its main thread busy.
    var isWebProcessResponsive: Bool { webkit_web_view_get_is_web_process_responsive(view) != 0 }

    /// Starts loading `uri` (`webkit_web_view_load_uri`).
    func load(_ uri: String) {
        webkit_web_view_load_uri(view, uri)
    }

    /// Makes every document loaded from now on (the entry, and pages the flow navigates to)
    /// run `source` (``PageScripts/context(_:)``: `window.larder.context`) before its first
    /// script, replacing the script set before.
    func setContextScript(_ source: String) {
        guard !destroyed else { return }
        if let contextScript {
            webkit_user_content_manager_remove_script(manager, contextScript)
            webkit_user_script_unref(contextScript)
        }
        let script = webkit_user_script_new(
            source, WEBKIT_USER_CONTENT_INJECT_TOP_FRAME, WEBKIT_USER_SCRIPT_INJECT_AT_DOCUMENT_START, nil, nil)
        webkit_user_content_manager_add_script(manager, script)
        contextScript = script
    }

    /// Maps (`gtk_widget_show`) or unmaps (`gtk_widget_hide`) the window; with a
    /// ``placement``, moves the view into it or back into the unmapped window instead.
    func setVisible(_ visible: Bool) {
        guard !destroyed else { return }
        wantsVisible = visible
        guard let placement else {
            if visible { gtk_widget_show(window) } else { gtk_widget_hide(window) }
            return
        }
        gtk_widget_hide(window)
        if visible { place(in: placement) } else { park() }
    }

    /// Routes the network of the view's context through `proxy`
    /// (`webkit_website_data_manager_set_network_proxy_settings`): for every scheme and host, no
    /// host exempt (ignore_hosts NULL: GLib's simple resolver then proxies localhost and
    /// 127.0.0.1 too).
    func setNetworkProxy(_ proxy: NetworkProxy) {
        let manager = webkit_web_view_get_website_data_manager(view)
        switch proxy {
        case .direct:
            webkit_website_data_manager_set_network_proxy_settings(manager, WEBKIT_NETWORK_PROXY_MODE_NO_PROXY, nil)
        case .http(let uri):
            let settings = webkit_network_proxy_settings_new(uri, nil)
            webkit_website_data_manager_set_network_proxy_settings(manager, WEBKIT_NETWORK_PROXY_MODE_CUSTOM, settings)
            webkit_network_proxy_settings_free(settings)
        }
    }

    /// Ends the web process (`webkit_web_view_terminate_web_process`), freeing all the page's
    /// memory; the next ``load(_:)`` starts a new one.
    func terminateWebProcess() {
        webkit_web_view_terminate_web_process(view)
    }

    /// Evaluates `script` (`webkit_web_view_evaluate_javascript`) and returns its completion
    /// value as JSON (`undefined` gives null).
    /// - Parameters:
    ///   - world: the script world, nil for the page's.
    ///   - timeout: how long to wait for the result.
    func evaluate(_ script: String, world: String?, timeout: Duration) async -> AsyncCall.Outcome {
        await AsyncCall.run("JavaScript evaluation", timeout: timeout) { call in
            webkit_web_view_evaluate_javascript(
                view, script, -1, world, "larder://evaluate", nil,
                { source, result, data in
                    WebKitActor.assumeIsolated {
                        let call = AsyncCall.fromRetained(data!)
                        var error: UnsafeMutablePointer<GError>?
                        let value = webkit_web_view_evaluate_javascript_finish(OpaquePointer(source).map(castView), result, &error)
                        call.finish(WebView.json(value, error: error, doing: "JavaScript evaluation"))
                    }
                }, AsyncCall.retainedPointer(call))
        }
    }

    /// Runs `body` as an async function (`webkit_web_view_call_async_javascript_function`):
    /// its returned promise is awaited and the settled value returned as JSON.
    func callAsync(_ body: String, world: String?, timeout: Duration) async -> AsyncCall.Outcome {
        await AsyncCall.run("an async JavaScript function", timeout: timeout) { call in
            webkit_web_view_call_async_javascript_function(
                view, body, -1, nil, world, "larder://readiness", nil,
                { source, result, data in
                    WebKitActor.assumeIsolated {
                        let call = AsyncCall.fromRetained(data!)
                        var error: UnsafeMutablePointer<GError>?
                        let value = webkit_web_view_call_async_javascript_function_finish(
                            OpaquePointer(source).map(castView), result, &error)
                        call.finish(WebView.json(value, error: error, doing: "an async JavaScript function"))
                    }
                }, AsyncCall.retainedPointer(call))
        }
    }

    /// A PNG of the visible area (`webkit_web_view_get_snapshot`, then cairo's PNG writer).
    func snapshot(timeout: Duration) async -> AsyncCall.Outcome {
        await AsyncCall.run("the snapshot", timeout: timeout) { call in
            webkit_web_view_get_snapshot(
                view, WEBKIT_SNAPSHOT_REGION_VISIBLE, WEBKIT_SNAPSHOT_OPTIONS_NONE, nil,
                { source, result, data in
                    WebKitActor.assumeIsolated {
                        let call = AsyncCall.fromRetained(data!)
                        var error: UnsafeMutablePointer<GError>?
                        guard let surface = webkit_web_view_get_snapshot_finish(OpaquePointer(source).map(castView), result, &error) else {
                            call.finish(.failure(HostError(.renderer, "the snapshot failed: \(WebView.message(of: error))")))
                            return
                        }
                        defer { cairo_surface_destroy(surface) }
                        call.finish(PNG.encode(surface))
                    }
                }, AsyncCall.retainedPointer(call))
        }
    }

    /// Empties WebKit's memory cache (`webkit_website_data_manager_clear`), so the next load
    /// fetches every file again.
    func clearMemoryCache(timeout: Duration) async -> AsyncCall.Outcome {
        await AsyncCall.run("clearing the memory cache", timeout: timeout) { call in
            webkit_website_data_manager_clear(
                webkit_web_view_get_website_data_manager(view), WEBKIT_WEBSITE_DATA_MEMORY_CACHE, 0, nil,
                { source, result, data in
                    WebKitActor.assumeIsolated {
                        let call = AsyncCall.fromRetained(data!)
                        var error: UnsafeMutablePointer<GError>?
                        let cleared = webkit_website_data_manager_clear_finish(source.map { UnsafeMutablePointer<WebKitWebsiteDataManager>(OpaquePointer($0)) }, result, &error) != 0
                        call.finish(cleared ? .success([]) : .failure(HostError(.renderer, "cannot clear the memory cache: \(WebView.message(of: error))")))
                    }
                }, AsyncCall.retainedPointer(call))
        }
    }

    /// Destroys the window and the view (`gtk_widget_destroy`); the web process ends.
    func destroy() {
        guard !destroyed else { return }
        park()
        placement = nil
        destroyed = true
        target.delegate = nil
        gtk_widget_destroy(window)
        g_object_unref(view)
        g_object_unref(manager)
        if let contextScript { webkit_user_script_unref(contextScript) }
        contextScript = nil
    }

    // MARK: Signals

    private func connectSignals() {
        let release: GClosureNotify = { data, _ in Unmanaged<SignalTarget>.fromOpaque(data!).release() }
        func retained() -> gpointer { Unmanaged.passRetained(target).toOpaque() }
        larder_connect_load_changed(
            view,
            { _, event, data in
                WebKitActor.assumeIsolated { SignalTarget.from(data)?.loadChanged(event) }
            }, retained(), release)
        larder_connect_load_failed(
            view,
            { _, _, uri, error, data in
                WebKitActor.assumeIsolated {
                    let cancelled = error.map { g_error_matches($0, webkit_network_error_quark(), gint(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue)) != 0 } ?? false
                    SignalTarget.from(data)?.loadFailed(
                        uri.map { String(cString: $0) } ?? "", message: error.map { String(cString: $0.pointee.message) } ?? "unknown error",
                        cancelled: cancelled)
                }
                return 1  // handled: no error page
            }, retained(), release)
        larder_connect_decide_policy(
            view,
            { _, decision, type, data in
                WebKitActor.assumeIsolated { SignalTarget.from(data)?.decide(decision!, type: type) ?? 0 }
            }, retained(), release)
        larder_connect_script_dialog(
            view,
            { _, dialog, data in
                WebKitActor.assumeIsolated { SignalTarget.from(data)?.answer(dialog!) }
                return 1  // handled: no GTK dialog, nothing waits
            }, retained(), release)
        larder_connect_print(
            view,
            { _, _, data in
                WebKitActor.assumeIsolated { SignalTarget.from(data)?.answered(PageDialog(kind: "print", message: "")) }
                return 1  // handled: nothing printed, no print dialog
            }, retained(), release)
        larder_connect_create(
            view,
            { _, action, data in
                WebKitActor.assumeIsolated {
                    let uri = action.flatMap { webkit_uri_request_get_uri(webkit_navigation_action_get_request($0)) }.map { String(cString: $0) } ?? ""
                    SignalTarget.from(data)?.refused(BlockedRequest(url: uri, reason: "popup"))
                }
                return nil  // no new view: nothing opens
            }, retained(), release)
        larder_connect_web_process_terminated(
            view,
            { _, reason, data in
                WebKitActor.assumeIsolated { SignalTarget.from(data)?.terminated(reason) }
            }, retained(), release)
        for channel in [PageScripts.bridgeChannel, PageScripts.engineChannel] {
            larder_connect_script_message(
                manager, channel,
                { _, value, reply, data in
                    WebKitActor.assumeIsolated { ChannelTarget.from(data)?.message(value, reply: reply) }
                    return 1
                }, ChannelTarget.retained(target, channel), { data, _ in Unmanaged<ChannelTarget>.fromOpaque(data!).release() })
        }
        target.webView = self
    }

    // MARK: Conversions

    /// A JSCValue as JSON bytes (`jsc_value_to_json`), or the GError's message.
    static func json(_ value: UnsafeMutablePointer<JSCValue>?, error: UnsafeMutablePointer<GError>?, doing what: String) -> AsyncCall.Outcome {
        guard let value else { return .failure(HostError(.renderer, "\(what) failed: \(message(of: error))")) }
        defer { g_object_unref(value) }
        return .success(jsonBytes(of: value) ?? Array("null".utf8))
    }

    /// The JSON text of a JSCValue, nil when it has none (undefined, a function).
    static func jsonBytes(of value: UnsafeMutablePointer<JSCValue>) -> [UInt8]? {
        guard jsc_value_is_undefined(value) == 0, let text = jsc_value_to_json(value, 0) else { return nil }
        defer { g_free(text) }
        return Array(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text)))
    }

    /// A GError's message, freeing it.
    static func message(of error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}

private func castView(_ pointer: OpaquePointer) -> UnsafeMutablePointer<WebKitWebView> {
    UnsafeMutablePointer<WebKitWebView>(pointer)
}

/// What GTK's signal handlers reach: the view, weakly, and its delegate. Each connection holds
/// one reference, released when the handler is disconnected (the view finalised).
@WebKitActor
private final class SignalTarget {
    weak var webView: WebView?
    weak var delegate: WebViewDelegate?

    static func from(_ data: gpointer?) -> SignalTarget? {
        data.map { Unmanaged<SignalTarget>.fromOpaque($0).takeUnretainedValue() }
    }

    func loadChanged(_ event: WebKitLoadEvent) {
        guard let webView, let delegate else { return }
        delegate.webView(webView, loadChanged: event, uri: webView.uri ?? "")
    }

    func loadFailed(_ uri: String, message: String, cancelled: Bool) {
        guard let webView, let delegate else { return }
        delegate.webView(webView, loadFailed: uri, message: message, cancelled: cancelled)
    }

    func decide(_ decision: UnsafeMutablePointer<WebKitPolicyDecision>, type: WebKitPolicyDecisionType) -> gboolean {
        guard let webView, let delegate else {
            webkit_policy_decision_ignore(decision)
            return 1
        }
        if type == WEBKIT_POLICY_DECISION_TYPE_RESPONSE {
            // What the engine cannot show it would download: refused, reported.
            let response = larder_response_decision(decision)
            guard webkit_response_policy_decision_is_mime_type_supported(response) == 0 else { return 0 }
            let uri = webkit_uri_request_get_uri(webkit_response_policy_decision_get_request(response)).map { String(cString: $0) } ?? ""
            webkit_policy_decision_ignore(decision)
            delegate.webView(webView, refused: BlockedRequest(url: uri, reason: "download"))
            return 1
        }
        let action = webkit_navigation_policy_decision_get_navigation_action(larder_navigation_decision(decision))
        let uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(action)).map { String(cString: $0) } ?? ""
        let navigationType = webkit_navigation_action_get_navigation_type(action)
        let kind: NavigationRequest.Kind =
            type == WEBKIT_POLICY_DECISION_TYPE_NEW_WINDOW_ACTION
            ? .newWindow
            : navigationType == WEBKIT_NAVIGATION_TYPE_FORM_SUBMITTED || navigationType == WEBKIT_NAVIGATION_TYPE_FORM_RESUBMITTED
                ? .formSubmission : .navigation
        if delegate.webView(webView, allows: NavigationRequest(uri: uri, kind: kind)), kind != .newWindow {
            webkit_policy_decision_use(decision)
        } else {
            webkit_policy_decision_ignore(decision)
        }
        return 1
    }

    /// Answers a script dialog at once, as a user who says no would: an alert is closed, a
    /// confirm answered false, a prompt given nothing (null), and a page asking to stay
    /// (`beforeunload`) is left.
    func answer(_ dialog: OpaquePointer) {
        let type = webkit_script_dialog_get_dialog_type(dialog)
        let message = webkit_script_dialog_get_message(dialog).map { String(cString: $0) } ?? ""
        let kind: String
        switch type {
        case WEBKIT_SCRIPT_DIALOG_CONFIRM:
            webkit_script_dialog_confirm_set_confirmed(dialog, 0)
            kind = "confirm"
        case WEBKIT_SCRIPT_DIALOG_PROMPT:
            webkit_script_dialog_prompt_set_text(dialog, nil)
            kind = "prompt"
        case WEBKIT_SCRIPT_DIALOG_BEFORE_UNLOAD_CONFIRM:
            webkit_script_dialog_confirm_set_confirmed(dialog, 1)
            kind = "beforeunload"
        default:
            kind = "alert"
        }
        answered(PageDialog(kind: kind, message: message))
    }

    func answered(_ dialog: PageDialog) {
        guard let webView, let delegate else { return }
        delegate.webView(webView, answered: dialog)
    }

    func refused(_ blocked: BlockedRequest) {
        guard let webView, let delegate else { return }
        delegate.webView(webView, refused: blocked)
    }

    func terminated(_ reason: WebKitWebProcessTerminationReason) {
        guard let webView, let delegate else { return }
        delegate.webView(webView, webProcessTerminated: reason)
    }
}

/// A script message channel's handler data: the view's signal target and the channel's name.
@WebKitActor
private final class ChannelTarget {
    let target: SignalTarget
    let channel: String

    private init(_ target: SignalTarget, _ channel: String) {
        self.target = target
        self.channel = channel
    }

    static func retained(_ target: SignalTarget, _ channel: String) -> gpointer {
        Unmanaged.passRetained(ChannelTarget(target, channel)).toOpaque()
    }

    static func from(_ data: gpointer?) -> ChannelTarget? {
        data.map { Unmanaged<ChannelTarget>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Hands the message's JSON to the delegate; a refusal rejects the page's promise
    /// (`webkit_script_message_reply_return_error_message`), acceptance resolves it.
    func message(_ value: UnsafeMutablePointer<JSCValue>?, reply: OpaquePointer?) {
        guard let webView = target.webView, let delegate = target.delegate else { return }
        let json = value.flatMap(WebView.jsonBytes)
        if let refusal = delegate.webView(webView, received: json, on: channel), let reply {
            webkit_script_message_reply_return_error_message(reply, refusal)
        }
    }
}
