import LarderHost
import LarderWebKit

/// What the renderer's last load read, whichever renderer ran a `larder journey` command.
struct LoadSummary {
    /// `headless` or `webkit`.
    var renderer: String
    /// Files read (headless) or requests served (the web engine).
    var resources: Int
    var fonts: Int
    var bytes: Int64
    var entry: String
    /// The web engine's own report.
    var engine: WebKitLoadReport?

    init(_ report: HeadlessRenderer.LoadReport) {
        renderer = "headless"
        resources = report.resources
        fonts = report.fonts
        bytes = report.bytes
        entry = report.entry
    }

    init(_ report: WebKitLoadReport) {
        renderer = "webkit"
        resources = report.requests.count
        fonts = report.fonts.count
        bytes = report.bytes
        entry = report.document
        engine = report
    }
}
