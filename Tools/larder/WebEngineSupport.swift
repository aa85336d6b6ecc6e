import Foundation
import LarderFormat
import LarderHost
import LarderWebKit

/// What the commands that use the web engine share: a display, the viewport option, PNG
/// output and the summary of a load.
enum WebEngineSupport {
    static let viewportOption = OptionSpec(
        names: ["--viewport"], value: "WxH", help: "The page's size in CSS pixels (default: 430x932).")
    static let screenshotOption = OptionSpec(names: ["--screenshot"], value: "png", help: "Write a PNG of the screen to this file.")

    static let displayNote = """
        The web engine is WebKitGTK. Without DISPLAY, larder starts Xvfb on a free display for
        the run; it stops when larder exits.
        """

    /// Starts Xvfb when no display is set.
    /// - Returns: the display started (nil when one was set).
    static func display() throws(HostError) -> String? {
        try VirtualDisplay.startIfNeeded()?.name
    }

    /// Parses `--viewport`.
    static func viewport(_ parsed: ParsedArguments, spec: CommandSpec) throws(UsageError) -> Viewport {
        guard let text = parsed.value("--viewport") else { return .phone }
        guard let viewport = Viewport(parsing: text) else {
            throw UsageError(message: "Invalid '--viewport <WxH>': '\(text)' (for example 430x932, each 1 to 8192)", command: spec)
        }
        return viewport
    }

    /// Writes PNG bytes through a temporary file and a rename.
    static func write(_ png: [UInt8], to path: String) throws(FormatError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let writer = try AtomicFileWriter(folder: folder, prefix: url.lastPathComponent)
        try png.withUnsafeBytes { bytes in Result { () throws(FormatError) in try writer.write(bytes) } }.get()
        try writer.commit(to: path)
    }

    /// The report of a load for people: one row per aspect.
    static func rows(_ report: WebKitLoadReport) -> [[String]] {
        let refused = report.requests.filter { $0.status != 200 }
        return [
            ["Document", report.document],
            ["Ready after", "\(milliseconds(report.readyAfter)) ms"],
            ["Fonts", report.fonts.isEmpty ? "none" : report.fonts.map { "\($0.family) \($0.weight) \($0.status)" }.joined(separator: ", ")],
            ["Requests", "\(report.requests.count) served through larder: and larder-font: (\(humanSize(report.bytes)))"
                + (refused.isEmpty ? "" : ", \(refused.count) refused")],
            ["Blocked", report.blocked.isEmpty ? "none" : report.blocked.map { "\($0.url) (\($0.reason))" }.joined(separator: ", ")],
        ]
    }

    /// The report of a load as JSON.
    static func json(_ report: WebKitLoadReport) -> JSONValue {
        .object([
            "document": .string(report.document),
            "readyMs": .int(milliseconds(report.readyAfter)),
            "fonts": .array(report.fonts.map { font in
                .object([
                    "family": .string(font.family), "weight": .string(font.weight), "style": .string(font.style),
                    "status": .string(font.status), "sources": .array(font.sources.map(JSONValue.string)),
                ])
            }),
            "requests": .array(report.requests.map { request in
                .object([
                    "url": .string(request.url), "status": .int(Int64(request.status)), "bytes": .int(Int64(request.bytes)),
                    "error": request.error.map(JSONValue.string) ?? .null,
                ])
            }),
            "bytes": .int(report.bytes),
            "blocked": .array(report.blocked.map { .object(["url": .string($0.url), "reason": .string($0.reason)]) }),
        ])
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
