import CWebKitGTK
import LarderFormat
import LarderHost

extension WebKitRenderer: WebViewDelegate {
    func webView(_ view: WebView, loadChanged event: WebKitLoadEvent, uri: String) {
        switch event {
        case WEBKIT_LOAD_COMMITTED:
            seenReports = []
            if let attempt, uri == attempt.url { attempt.committed = true }
            if case .loaded(let visible, _) = state, let content {
                state = .loaded(visible: visible, document: LoadVerdict.bundlePath(uri, content.bundle) ?? uri)
            }
        case WEBKIT_LOAD_FINISHED:
            // A navigation the page started just before this load can still commit and
            // finish after it, while the view reports this load's URI: the view is then still
            // loading (this load), so that finish is not this load's.
            guard let attempt, attempt.committed || attempt.failure != nil, attempt.failure != nil || !view.isLoading else { return }
            attempt.finished?.finish(attempt.failure.map { .failure($0) } ?? .success([]))
        default:
            break
        }
    }

    func webView(_ view: WebView, loadFailed uri: String, message: String, cancelled: Bool) {
        // Only this load's own document: a navigation it replaced fails (cancelled) too.
        guard let attempt, uri == attempt.url else { return }
        let document = LoadVerdict.bundlePath(uri, attempt.bundle) ?? uri
        attempt.failure = attempt.failure
            ?? HostError(
                .renderer, cancelled ? "the load of '\(document)' was cancelled" : "'\(document)' failed to load: \(message)",
                resource: document, digest: attempt.bundle)
    }

    func webView(_ view: WebView, allowsNavigationTo uri: String, newWindow: Bool) -> Bool {
        if !newWindow {
            if uri == "about:blank" { return true }
            if let content, case .file = SchemeRoute.of(uri, bundle: content.bundle) { return true }
            if configuration.remote.allows(uri) { return true }
        }
        blockedRequests.append(BlockedRequest(url: uri, reason: newWindow ? "new-window" : "navigation"))
        return false
    }

    func webView(_ view: WebView, received json: [UInt8]?, on channel: String) -> String? {
        if channel == PageScripts.engineChannel {
            observe(json)
            return nil
        }
        guard let json else { return refuse(HostError(.malformedDocument, "the bridge message has no JSON form (undefined, a function)")) }
        guard content != nil, let bridge else { return refuse(HostError(.renderer, "a bridge message arrived while nothing is loaded")) }
        let message: BridgeMessage
        do { message = try bridge.receive(json) } catch {
            // Past the bridge's bounds: counted there, not kept one by one.
            if error.code == .limitExceeded { return error.message }
            return refuse(error)
        }
        if case .navigate(let screen) = message, case .loaded(let visible, _) = state {
            state = .loaded(visible: visible, document: screen)
        }
        return nil
    }

    func webView(_ view: WebView, webProcessTerminated reason: WebKitWebProcessTerminationReason) {
        guard reason != WEBKIT_WEB_PROCESS_TERMINATED_BY_API, state != .stopped else { return }
        let why = reason == WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT ? "exceeded its memory limit" : "crashed"
        cancelAttempt(HostError(.renderer, "the web process \(why)"))
        content = nil
        state = .started
    }

    /// Records a refusal and returns its text for the page.
    private func refuse(_ error: HostError) -> String {
        refusals.append(error)
        return error.message
    }

    /// A report of the observer script (a script error, a blocked request).
    private func observe(_ json: [UInt8]?) {
        guard let json else { return }
        do throws(HostError) {
            let value: JSONValue
            do { value = try JSONValue.parse(json) } catch { throw HostError(.renderer, error.message) }
            let fields = try PageReadiness.object(value, "a report")
            switch try PageReadiness.string(fields["kind"], "kind") {
            case "error": note(try PageReadiness.scriptError(value))
            case "blocked": note(try PageReadiness.blockedRequest(value))
            default: return
            }
        } catch {
            // Only Larder's own observer posts here (the page cannot reach its world), and the
            // readiness answer carries the same reports: nothing is lost.
        }
    }
}
