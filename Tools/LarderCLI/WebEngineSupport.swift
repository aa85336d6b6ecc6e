import Foundation
import LarderFormat
import LarderHost

/// What the commands that use the web engine share: the viewport option and PNG output.
enum WebEngineSupport {
    static let viewportOption = OptionSpec(
        names: ["--viewport"], value: "WxH", help: "The page's size in CSS pixels (default: 430x932).")
    static let screenshotOption = OptionSpec(names: ["--screenshot"], value: "png", help: "Write a PNG of the screen to this file.")

    static let displayNote = """
        The web engine is WebKitGTK. Without DISPLAY, larder starts Xvfb on a free display for
        the run; it stops when larder exits.
        """

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
}
