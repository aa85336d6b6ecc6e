import CWebKitGTK
import LarderFormat
import LarderHost

/// One load in progress: what it loads, the wait for WebKit's `load-finished`, and the scheme
/// requests answered meanwhile.
@WebKitActor
final class LoadAttempt {
    /// The URL loaded.
    let url: String
    /// The bundle served, nil for a page loaded by URL.
    let bundle: Digest?
    /// When the load started.
    let started: ContinuousClock.Instant
    /// Requests answered during this load, in order.
    var requests: [AnsweredRequest] = []
    /// What was refused and which dialogs were answered during this load, in order.
    var blocked: [BlockedRequest] = []
    var dialogs: [PageDialog] = []
    /// Set once WebKit reported `load-committed` for this URL: a `load-finished` before it
    /// belongs to the load this one replaced (a navigation the page had started), whose
    /// events may still arrive after this load started.
    var committed = false
    /// The main document's failure (`load-failed`).
    var failure: HostError?
    /// Resumed at `load-finished` (or a failure).
    var finished: AsyncCall?

    init(url: String, bundle: Digest?, started: ContinuousClock.Instant) {
        self.url = url
        self.bundle = bundle
        self.started = started
    }

    /// Ends the wait for `load-finished` with `error` (a cancellation, the renderer stopped).
    func cancel(_ error: HostError) {
        failure = failure ?? error
        finished?.finish(.failure(error))
    }
}

extension WebKitRenderer {
    /// Loads `url` and waits until ready: `load-finished`, then the readiness script (fonts
    /// ready and each face loaded), then ``LoadVerdict``.
    /// - Parameter document: the bundle path (or URL) the report names.
    func performLoad(_ url: String, document: String, visible: Bool) async throws(HostError) -> WebKitLoadReport {
        guard let webView else { throw HostError(.renderer, "the renderer is not started") }
        cancelAttempt(HostError(.cancelled, "another load replaced this one"))
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.loadTimeout
        let attempt = LoadAttempt(url: url, bundle: content?.bundle, started: clock.now)
        self.attempt = attempt
        defer { if self.attempt === attempt { self.attempt = nil } }
        webView.setVisible(visible)

        let finished = await AsyncCall.run("the load of '\(document.prefix(200))'", timeout: deadline - clock.now) { call in
            attempt.finished = call
            webView.load(url)
        }
        if case .failure(let error) = finished {
            guard error.code == .renderer && attempt.failure == nil else { throw error }
            throw overrun(attempt, document: document, waiting: error.message)
        }
        let essentialFonts = content?.manifest.files.filter { $0.role == .font && $0.essential }.map { FontURL(digest: $0.digest).description } ?? []
        let answer = await webView.callAsync(
            PageScripts.readiness(essentialFonts: essentialFonts), world: PageScripts.world, timeout: max(deadline - clock.now, .milliseconds(1)))
        guard self.attempt === attempt else { throw attempt.failure ?? HostError(.cancelled, "another load replaced this one") }
        let readiness: PageReadiness
        switch answer {
        case .failure(let error):
            throw overrun(attempt, document: document, waiting: "waiting for fonts and the page failed: \(error.message)")
        case .success(let bytes):
            do { readiness = try PageReadiness(json: try JSONValue.parse(bytes)) } catch let error as HostError {
                throw error
            } catch {
                throw HostError(.renderer, "the readiness answer is not JSON", resource: document)
            }
        }
        for error in readiness.errors { note(error) }
        for blocked in readiness.blocked { note(blocked) }
        for hint in readiness.hints where !configuration.remote.allows(hint.value.url) { note(hint) }
        if let failure = LoadVerdict.failure(of: readiness, loading: url, requests: attempt.requests, bundle: attempt.bundle) {
            throw failure
        }
        return WebKitLoadReport(
            document: document, requests: attempt.requests.map(\.record), fonts: readiness.fonts, blocked: attempt.blocked,
            dialogs: attempt.dialogs, readyAfter: clock.now - attempt.started)
    }

    /// The page was not ready by the deadline: whatever it is doing (a script that never
    /// returns, a document that grows, a load that never finishes), its web process is ended
    /// now (`webkit_web_view_terminate_web_process`), so it neither spins nor grows past the
    /// renderer's patience; the next load starts a new one.
    private func overrun(_ attempt: LoadAttempt, document: String, waiting: String) -> HostError {
        let responsive = webView?.isWebProcessResponsive ?? true
        webView?.terminateWebProcess()
        if self.attempt === attempt { self.attempt = nil }
        return HostError(
            .renderer,
            "not ready within \(DurationText.describe(configuration.loadTimeout)): \(waiting); its web process was ended"
                + (responsive ? "" : " (it had stopped responding: a script that does not return?)"),
            resource: document, digest: attempt.bundle)
    }

    /// Ends the load in progress, if any, with `error`.
    func cancelAttempt(_ error: HostError) {
        guard let attempt else { return }
        self.attempt = nil
        attempt.cancel(error)
    }

    /// Counts an observer report once per document.
    func note(_ error: PageReadiness.Numbered<ScriptError>) {
        guard seenReports.insert(error.id).inserted else { return }
        scriptErrors.appendKeepingLast(Self.logLimit, error.value)
    }

    /// Counts an observer report once per document.
    func note(_ blocked: PageReadiness.Numbered<BlockedRequest>) {
        guard seenReports.insert(blocked.id).inserted else { return }
        note(blocked.value)
    }

    /// Records something refused, in the renderer's list and the load's report.
    func note(_ blocked: BlockedRequest) {
        blockedRequests.appendKeepingLast(Self.logLimit, blocked)
        attempt?.blocked.append(blocked)
    }
}

extension Array {
    /// Appends `element`, dropping the oldest so that at most `limit` stay.
    /// - Complexity: O(1) amortised: the oldest tenth goes at once when the limit is passed.
    mutating func appendKeepingLast(_ limit: Int, _ element: Element) {
        append(element)
        if count > limit { removeFirst(Swift.max(count - limit, limit / 10)) }
    }
}
