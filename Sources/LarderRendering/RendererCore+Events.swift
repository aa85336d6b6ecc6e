import LarderFormat
import LarderHost

/// What the engine reports (see ``PageEngine`` for each one's WebKitGTK signal and WKWebView
/// delegate method), called on the engine's thread.
extension RendererCore {
    /// The engine committed a load of `uri` (the page changed).
    public func loadCommitted(_ uri: String) {
        seenReports = []
        if let attempt, uri == attempt.url { attempt.committed = true }
        if case .loaded(let visible, _) = state, let content {
            state = .loaded(visible: visible, document: LoadVerdict.bundlePath(uri, content.bundle) ?? uri)
        }
    }

    /// The engine finished a load.
    public func loadFinished() {
        // A navigation the page started just before this load can still commit and finish
        // after it, while the engine reports this load's URI: the engine is then still loading
        // (this load), so that finish is not this load's.
        guard let attempt, attempt.committed || attempt.failure != nil, attempt.failure != nil || !(engine?.isLoading ?? false) else { return }
        attempt.finished?.finish(attempt.failure.map { .failure($0) } ?? .success([]))
    }

    /// The main document of a load failed (cancellations included).
    public func loadFailed(_ uri: String, message: String, cancelled: Bool) {
        // Only this load's own document: a navigation it replaced fails (cancelled) too.
        guard let attempt, uri == attempt.url else { return }
        let document = LoadVerdict.bundlePath(uri, attempt.bundle) ?? uri
        attempt.failure = attempt.failure
            ?? HostError(
                .renderer, cancelled ? "the load of '\(document)' was cancelled" : "'\(document)' failed to load: \(message)",
                resource: document, digest: attempt.bundle)
    }

    /// Whether a navigation may happen. A frame may go to the bundle's own files, to documents
    /// made in the page (`about:blank`, `about:srcdoc`, `data:`, `blob:`: each carries the
    /// policy it was created under, and has no route out anyway) and to allowed origins;
    /// nothing else (another bundle, `file:`, any other scheme). No new window opens; each
    /// refusal is recorded in ``blockedRequests``.
    public func allows(_ navigation: NavigationRequest) -> Bool {
        let uri = navigation.uri
        if navigation.kind != .newWindow {
            if ["about:blank", "about:srcdoc"].contains(uri) || uri.hasPrefix("data:") || uri.hasPrefix("blob:") { return true }
            if let content, case .file = SchemeRoute.of(uri, bundle: content.bundle) { return true }
            if configuration.remote.allows(uri) { return true }
        }
        let reason = switch navigation.kind {
        case .navigation: "navigation"
        case .formSubmission: "form-submission"
        case .newWindow: "popup"
        }
        refused(BlockedRequest(url: uri, reason: reason))
        return false
    }

    /// Something refused (a download, a popup, what the egress filter refused): recorded in
    /// ``blockedRequests`` and the load's report.
    public func refused(_ blocked: BlockedRequest) {
        blockedRequests.appendKeepingLast(Self.logLimit, blocked)
        attempt?.blocked.append(blocked)
    }

    /// A dialog the engine answered at once.
    public func answered(_ dialog: PageDialog) {
        dialogs.appendKeepingLast(Self.logLimit, dialog)
        attempt?.dialogs.append(dialog)
    }

    /// A script message with reply on `channel`: its JSON text (nil when the value has no JSON
    /// form). Messages of the page's bridge (`PageScripts.bridgeChannel`) become
    /// `BridgeMessage`s for the host; a malformed one is refused and recorded in
    /// ``refusals``.
    /// - Returns: nil to accept, or the message of the error the page's promise rejects with.
    public func received(_ json: [UInt8]?, on channel: String) -> String? {
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

    /// A web process that ended by itself (it crashed, was killed, or went over its memory
    /// limit): the content is gone, the load in progress fails, and the host hears of it
    /// (`RendererEvent.terminated(reason:)`) so its next preparation loads again. Ends the
    /// renderer asked for (unload, stop, the deadline) are not reported.
    public func webProcessTerminated(_ reason: PageTermination) {
        guard reason != .requested, state != .stopped else { return }
        let why = reason == .exceededMemoryLimit
            ? "the web process went over its memory limit (\(configuration.webProcessMemoryLimit) MiB) and was ended"
            : "the web process crashed or was killed"
        cancelAttempt(HostError(.renderer, why, digest: content?.bundle))
        content = nil
        state = .started
        terminations += 1
        bridge?.report(.terminated(reason: why))
    }

    /// Records a refusal and returns its text for the page.
    private func refuse(_ error: HostError) -> String {
        refusals.appendKeepingLast(Self.logLimit, error)
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
            case "hint": if let hint = try PageReadiness.linkHint(value), !configuration.remote.allows(hint.value.url) { note(hint) }
            default: return
            }
        } catch {
            // Only Larder's own observer posts here (the page cannot reach its world), and the
            // readiness answer carries the same reports: nothing is lost.
        }
    }
}
