import CWebKitGTK
import LarderHost
import LarderRendering

/// The view's signals, told to the core in its own terms (``RendererCore``'s event methods).
extension WebKitRenderer: WebViewDelegate {
    func webView(_ view: WebView, loadChanged event: WebKitLoadEvent, uri: String) {
        switch event {
        case WEBKIT_LOAD_COMMITTED: core.loadCommitted(uri)
        case WEBKIT_LOAD_FINISHED: core.loadFinished()
        default: break
        }
    }

    func webView(_ view: WebView, loadFailed uri: String, message: String, cancelled: Bool) {
        core.loadFailed(uri, message: message, cancelled: cancelled)
    }

    func webView(_ view: WebView, allows navigation: NavigationRequest) -> Bool {
        core.allows(navigation)
    }

    func webView(_ view: WebView, refused blocked: BlockedRequest) {
        core.refused(blocked)
    }

    func webView(_ view: WebView, answered dialog: PageDialog) {
        core.answered(dialog)
    }

    func webView(_ view: WebView, received json: [UInt8]?, on channel: String) -> String? {
        core.received(json, on: channel)
    }

    func webView(_ view: WebView, webProcessTerminated reason: WebKitWebProcessTerminationReason) {
        core.webProcessTerminated(
            reason == WEBKIT_WEB_PROCESS_TERMINATED_BY_API
                ? .requested : reason == WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT ? .exceededMemoryLimit : .crashed)
    }
}
