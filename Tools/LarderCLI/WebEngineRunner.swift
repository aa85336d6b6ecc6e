import LarderCache
import LarderFormat
import LarderHost

/// What the commands that use the web engine (`render`, `journey --renderer webkit`) ask of it.
///
/// `larder` does not link the engine (WebKitGTK, GTK and ICU: some 180 libraries, about 50 MiB
/// of memory and a tenth of a second to load), so every other command starts without it. Its
/// runner is ``WebEngineProgram``, which hands the whole command line to `larder-webkit`, the
/// same commands built with the engine (`WebKitEngine`). A command calls ``takeOver()`` once
/// its arguments are parsed (usage errors and help are answered without the engine) and before
/// it does anything else, so the hand-over repeats nothing.
package protocol WebEngineRunner: Sendable {
    /// Makes sure the engine runs this command: returns when it is in this process; otherwise
    /// replaces the process with the program that has it, with the same command line,
    /// descriptors and environment (`execv`), and returns only by throwing.
    /// - Throws: ``HostError/Code/renderer`` when that program is missing or cannot start.
    func takeOver() throws(HostError)

    /// Starts Xvfb when no display is set.
    /// - Returns: the display started (nil when one was set).
    /// - Throws: ``HostError/Code/renderer`` when none can be started.
    func display() throws(HostError) -> String?

    /// A new web engine renderer for the journey host.
    /// - Throws: ``HostError/Code/renderer`` when the engine is not in this process.
    func makeRenderer(viewport: Viewport) throws(HostError) -> any JourneyRenderer

    /// Loads a cached bundle hidden in a new renderer until ready, captures it and stops it.
    func render(_ bundle: Digest, cache: LarderCache, viewport: Viewport) async -> Result<RenderedScreen, HostError>

    /// A PNG of what a renderer made by ``makeRenderer(viewport:)`` shows.
    /// - Throws: ``HostError/Code/renderer`` when nothing is loaded.
    func screenshot(_ renderer: any JourneyRenderer) async throws(HostError) -> [UInt8]

    /// What a renderer made by ``makeRenderer(viewport:)`` read in its last load (nil for
    /// any other renderer).
    func lastLoad(_ renderer: any JourneyRenderer) async -> LoadSummary?

    /// Presents `host`'s journey (made with a renderer of ``makeRenderer(viewport:)``) in a
    /// window of the engine's journey view (``JourneyWindow``): until the flow ends or the
    /// window closes, or with `screenshot` until the flow or the error state shows, whose
    /// picture it takes.
    func presentInWindow(_ host: JourneyHost, context: [String: String], screenshot: Bool) async -> WindowRun
}

/// One screen the engine rendered, with its load report for people and as JSON.
package struct RenderedScreen: Sendable {
    package var name: String
    package var png: [UInt8]
    /// The load report as table rows.
    package var rows: [[String]]
    /// The load report as a JSON object.
    package var json: JSONValue

    package init(name: String, png: [UInt8], rows: [[String]], json: JSONValue) {
        self.name = name
        self.png = png
        self.rows = rows
        self.json = json
    }
}
