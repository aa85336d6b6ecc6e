import CWebKitGTK
import Foundation
import LarderCLI
import LarderHost
import LarderJourneyView
import LarderWebKit

#if canImport(Glibc)
import Glibc
#endif

extension WebKitEngine {
    func presentInWindow(_ host: JourneyHost, context: [String: String], screenshot: Bool) async -> WindowRun {
        await WindowSession.run(host, context: context, screenshot: screenshot)
    }
}

/// One `larder journey present --window` run: a ``JourneyView`` presented in a window of its
/// own (no app window to be transient for), as an app presents it.
@WebKitActor
final class WindowSession {
    private let view: JourneyView
    private var run = WindowRun()
    private var closed: CheckedContinuation<Void, Never>?
    private var isClosed = false
    private var signalSources: [guint] = []

    private init(_ view: JourneyView) {
        self.view = view
    }

    /// Presents in a window until it closes, or with `screenshot` until the flow or the error
    /// state shows (then takes its picture and closes it).
    static func run(_ host: JourneyHost, context: [String: String], screenshot: Bool) async -> WindowRun {
        let view: JourneyView
        do { view = try JourneyView(host: host, context: context) } catch { return WindowRun(error: error) }
        return await WindowSession(view).run(screenshot: screenshot)
    }

    private func run(screenshot: Bool) async -> WindowRun {
        view.onError = { [weak self] error in self?.run.error = error }
        view.onResult = { [weak self] result in self?.run.result = result }
        view.onOverlayClosed = { [weak self] in self?.finish() }
        await view.present(over: nil)
        guard view.overlayWindow != nil else {
            run.error = run.error ?? HostError(.renderer, "the window could not open")
            return run
        }
        if screenshot {
            await captureOnceSettled()
        } else {
            closeOnSignals()
        }
        await waitUntilClosed()
        for source in signalSources { g_source_remove(source) }
        return run
    }

    /// Waits until the view leaves its loading state (the host's presentation deadline bounds
    /// it), takes the window's picture once it stops changing and closes the window.
    private func captureOnceSettled() async {
        // The presentation deadline (15 s by default) ends every loading state; this bound only
        // guards against a host that never answers.
        let bound = ContinuousClock.now + .seconds(600)
        while view.phase == .loading || view.phase == .idle, view.overlayWindow != nil, ContinuousClock.now < bound {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if view.phase == .showing { run.session = view.session }
        if let window = view.overlayWindow {
            // A page that animates never settles: a second at most.
            do { run.png = try await WindowPicture.settled(window, timeout: .seconds(1))?.png() } catch { run.error = error }
        }
        view.dismiss()
    }

    /// Ctrl-C and SIGTERM close the window, as its close button does.
    private func closeOnSignals() {
        for number in [SIGINT, SIGTERM] {
            let source = g_unix_signal_add_full(
                G_PRIORITY_DEFAULT, number,
                { data in
                    WebKitActor.assumeIsolated { Unmanaged<WindowSession>.fromOpaque(data!).takeUnretainedValue().view.dismiss() }
                    return 1  // G_SOURCE_CONTINUE: removed when the run ends
                }, Unmanaged.passRetained(self).toOpaque(), { data in Unmanaged<WindowSession>.fromOpaque(data!).release() })
            signalSources.append(source)
        }
    }

    private func waitUntilClosed() async {
        guard !isClosed else { return }
        await withCheckedContinuation { closed = $0 }
        // The dismissal's result (ended-by-app) follows the window's closing, also when the
        // window closed as the flow appeared, before the host's answer named its session.
        if run.result == nil, view.session != nil || run.session != nil || view.isResultPending { run.result = await view.result() }
    }

    private func finish() {
        if run.session == nil { run.session = view.session }
        isClosed = true
        closed?.resume()
        closed = nil
    }
}
