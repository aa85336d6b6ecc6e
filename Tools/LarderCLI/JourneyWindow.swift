import LarderHost

/// `larder journey present --renderer webkit --window`: the journey in a real window, as an app
/// shows it (the engine's journey view: loading state, the flow, or the error state with Try
/// again and Close).
///
/// On a display the window is interactive: the run ends when the flow ends, when the window is
/// closed, or on Ctrl-C (SIGINT) or SIGTERM, which close it. With `--screenshot` the run
/// writes the window's picture as soon as the flow shows or the error state is up, then
/// closes it: exit 0 when the flow showed, the error's status (69: nothing to show) when the
/// error state was up.
enum JourneyWindow {
    static let option = OptionSpec(
        names: ["--window"], value: nil,
        help: "With --renderer webkit: show the journey in a window as an app does (loading state, the flow, or an error state with Try again); it stays until the flow ends or the window is closed, or with --screenshot until the flow or the error state shows.")

    static let notes = """
        WINDOW: with --window the journey opens in a window of its own at the viewport's size:
        a loading indicator while the host prepares, then the flow, or a generic error message
        with Try again and Close (the error itself is printed). Closing the window, Ctrl-C or
        SIGTERM ends the presentation (outcome ended-by-app). With --screenshot the window's
        picture is written once the flow or the error state shows, and the run ends: exit 0
        when the flow showed, 69 when there was nothing to show. Without DISPLAY the window
        opens on a virtual display (Xvfb) no one sees.
        """

    /// Presents `host`'s journey in a window with `engine` and records what happened in
    /// `outcome`.
    /// - Throws: the error the view showed its error state for, when no flow showed; a
    ///   ``HostError/Code/cancelled`` one when the window closed while loading.
    static func present(
        _ host: JourneyHost, engine: any WebEngineRunner, context: [String: String], screenshot: Bool, into outcome: inout JourneyOutcome
    ) async throws(HostError) {
        let run = await engine.presentInWindow(host, context: context, screenshot: screenshot)
        outcome.session = run.result?.session ?? run.session
        outcome.result = run.result
        outcome.png = run.png
        if case .ready(let prepared) = await host.readiness { outcome.prepared = prepared }
        if run.session == nil && run.result == nil {
            throw run.error ?? HostError(.cancelled, "the window closed before the journey showed")
        }
    }
}

/// What a window presentation (``WebEngineRunner/presentInWindow(_:context:screenshot:)``) did.
package struct WindowRun: Sendable {
    /// The session shown (the last one, after a Try again), nil when none showed.
    package var session: PresentationSession?
    /// How the shown flow ended.
    package var result: PresentationResult?
    /// The last error the window showed its error state for.
    package var error: HostError?
    /// The window's picture, when asked for.
    package var png: [UInt8]?

    package init(session: PresentationSession? = nil, result: PresentationResult? = nil, error: HostError? = nil, png: [UInt8]? = nil) {
        self.session = session
        self.result = result
        self.error = error
        self.png = png
    }
}
