import LarderFormat
import LarderHost

/// One load in progress: what it loads, the wait for the engine's load to finish, and the
/// scheme requests answered meanwhile.
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
    /// Set once the engine reported the commit of this URL: a finish before it belongs to
    /// the load this one replaced (a navigation the page had started), whose events may
    /// still arrive after this load started.
    var committed = false
    /// The main document's failure.
    var failure: HostError?
    /// Ended when the load finishes (or fails).
    var finished: (any PageCompletion)?

    init(url: String, bundle: Digest?, started: ContinuousClock.Instant) {
        self.url = url
        self.bundle = bundle
        self.started = started
    }

    /// Ends the wait for the finish with `error` (a cancellation, the renderer stopped).
    func cancel(_ error: HostError) {
        failure = failure ?? error
        finished?.finish(.failure(error))
    }
}

extension RendererCore {
    /// Loads `url` and waits until ready: the engine's finish, then the readiness script
    /// (fonts ready and each face loaded), then ``LoadVerdict``.
    /// - Parameter document: the bundle path (or URL) the report names.
    nonisolated(nonsending) func performLoad(_ url: String, document: String, visible: Bool) async throws(HostError) -> PageLoadReport {
        guard let engine else { throw HostError(.renderer, "the renderer is not started") }
        cancelAttempt(HostError(.cancelled, "another load replaced this one"))
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.loadTimeout
        let attempt = LoadAttempt(url: url, bundle: content?.bundle, started: clock.now)
        self.attempt = attempt
        defer { if self.attempt === attempt { self.attempt = nil } }
        engine.setVisible(visible)

        let finished = await engine.wait(for: "the load of '\(document.prefix(200))'", timeout: deadline - clock.now) { call in
            attempt.finished = call
            engine.load(url)
        }
        if case .failure(let error) = finished {
            guard error.code == .renderer && attempt.failure == nil else { throw error }
            throw overrun(attempt, document: document, waiting: error.message)
        }
        let essentialFonts = content?.manifest.files.filter { $0.role == .font && $0.essential }.map { FontURL(digest: $0.digest).description } ?? []
        let waitsForPage = waitsForPageReady
        let answer = await engine.callAsyncJavaScript(
            PageScripts.readiness(essentialFonts: essentialFonts, waitsForPage: waitsForPage), world: PageScripts.world,
            timeout: max(deadline - clock.now, .milliseconds(1)))
        guard self.attempt === attempt else { throw attempt.failure ?? HostError(.cancelled, "another load replaced this one") }
        let readiness: PageReadiness
        switch answer {
        case .failure(let error):
            let waited = waitsForPage ? "waiting for the page's larder.ready() (its bundle lists 'ready'), fonts and the page" : "waiting for fonts and the page"
            throw overrun(attempt, document: document, waiting: "\(waited) failed: \(error.message)")
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
        return PageLoadReport(
            document: document, requests: attempt.requests.map(\.record), fonts: readiness.fonts, blocked: attempt.blocked,
            dialogs: attempt.dialogs, readyAfter: clock.now - attempt.started)
    }

    /// Whether the load waits for the page's `larder.ready()`: the bundle lists
    /// `Manifest.Capability.ready` and the renderer advertises it.
    var waitsForPageReady: Bool {
        guard let content, configuration.capabilities.contains(.ready) else { return false }
        return content.manifest.renderer.capabilities.contains(.ready)
    }

    /// The page was not ready by the deadline: whatever it is doing (a script that never
    /// returns, a document that grows, a load that never finishes), its web process is ended
    /// now, so it neither spins nor grows past the renderer's patience; the next load starts a
    /// new one.
    private func overrun(_ attempt: LoadAttempt, document: String, waiting: String) -> HostError {
        let responsive = engine?.isWebProcessResponsive ?? true
        engine?.terminateWebProcess()
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
        refused(blocked.value)
    }
}
