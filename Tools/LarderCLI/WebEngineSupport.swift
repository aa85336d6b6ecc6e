import Foundation
import LarderFormat
import LarderHost

/// What the commands that use the web engine share: the viewport option and PNG output.
enum WebEngineSupport {
    /// `--viewport <WxH>`; the phone's when not given.
    static let viewport = TypedOption<Viewport>(
        OptionSpec(names: ["--viewport"], value: "WxH", help: "The page's size in CSS pixels (default: 430x932)."), default: .phone
    ) { text in
        guard let viewport = Viewport(parsing: text) else {
            return .failure(OptionRefusal(message: "Invalid '--viewport <WxH>': '\(text)' (for example 430x932, each 1 to 8192)"))
        }
        return .success(viewport)
    }

    static let displayNote = """
        The web engine is WebKitGTK. Without DISPLAY, larder starts Xvfb on a free display for
        the run; it stops when larder exits.
        """

    /// Writes PNG bytes through a temporary file and a rename.
    static func write(_ png: [UInt8], to path: String) throws(FormatError) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let writer = try AtomicFileWriter(folder: folder, prefix: url.lastPathComponent)
        try png.withUnsafeBytes { bytes in Result { () throws(FormatError) in try writer.write(bytes) } }.get()
        try writer.commit(to: path)
    }
}
