import LarderFormat
import LarderHost

/// What the renderer's last load read, whichever renderer ran a `larder journey` command.
package struct LoadSummary: Sendable {
    /// `headless` or `webkit`.
    package var renderer: String
    /// Files read (headless) or requests served (the web engine).
    package var resources: Int
    package var fonts: Int
    package var bytes: Int64
    package var entry: String
    /// The web engine's own report, as table rows and as a JSON object.
    package var engine: (rows: [[String]], json: JSONValue)?

    init(_ report: HeadlessRenderer.LoadReport) {
        renderer = "headless"
        resources = report.resources
        fonts = report.fonts
        bytes = report.bytes
        entry = report.entry
    }

    /// The web engine's load.
    package init(resources: Int, fonts: Int, bytes: Int64, entry: String, rows: [[String]], json: JSONValue) {
        renderer = "webkit"
        self.resources = resources
        self.fonts = fonts
        self.bytes = bytes
        self.entry = entry
        engine = (rows, json)
    }
}
