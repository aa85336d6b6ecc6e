import Foundation
import LarderFormat

/// A new flow's source folder (`larder init`): an entry document, a stylesheet, a script, a
/// font with its licence (split into `latin` subsets when packed), the page runtime's types,
/// and a `larder.json` that turns the runtime on. It packs without a warning.
public enum FlowScaffold {
    /// A font and its licence text, copied into the flow.
    public struct Font: Sendable, Equatable {
        public var file: String
        public var licence: String

        public init(file: String, licence: String) {
            self.file = file
            self.licence = licence
        }

        /// DejaVu Sans from Debian's `fonts-dejavu-core`, with the package's copyright file
        /// (what the legacy-prompt sample carries).
        public static let dejaVuSans = Font(
            file: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", licence: "/usr/share/doc/fonts-dejavu-core/copyright")
    }

    /// The font's name in the flow.
    static let fontFile = "DejaVuSans.ttf"
    static let licenceFile = "LICENSE-DejaVu.txt"

    /// The bundle paths of what ``create(at:font:)`` writes, in path order.
    public static let paths = [
        "css/flow.css", "fonts/\(licenceFile)", "fonts/\(fontFile)", "index.html", "js/flow.js", PageRuntime.typesPath,
        BundleConfiguration.fileName,
    ]

    /// Writes a new flow at `folder`, named after its last component. The files are written in
    /// a temporary folder next to it, which is then renamed to `folder`: a failure leaves nothing.
    /// - Throws: ``PackError`` with ``PackError/Code/outputFailed`` when `folder` exists and is
    ///   not an empty folder, or a file cannot be written; ``PackError/Code/unreadableFile``
    ///   naming the font or licence that cannot be read.
    public static func create(at folder: String, font: Font = .dejaVuSans) throws(PackError) {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: folder, isDirectory: &isFolder) {
            let empty = isFolder.boolValue && ((try? manager.contentsOfDirectory(atPath: folder))?.isEmpty ?? false)
            guard empty else {
                throw PackError(.outputFailed, "exists and is not an empty folder: choose a new folder for the flow", path: folder)
            }
        }
        let fontBytes = try read(font.file, what: "the font")
        let licenceBytes = try read(font.licence, what: "the font's licence")
        let trimmed = folder.hasSuffix("/") && folder.count > 1 ? String(folder.dropLast()) : folder
        let name = trimmed.split(separator: "/").last.map(String.init) ?? "flow"
        let files: [String: [UInt8]] = [
            BundleConfiguration.fileName: Array(configuration(name: name).utf8), "index.html": Array(entry.utf8),
            "css/flow.css": Array(stylesheet.utf8), "js/flow.js": Array(script.utf8), PageRuntime.typesPath: PageRuntime.typesBytes,
            "fonts/\(fontFile)": fontBytes, "fonts/\(licenceFile)": licenceBytes,
        ]
        let parent = (trimmed as NSString).deletingLastPathComponent
        let staging = (parent.isEmpty ? "." : parent) + "/.\(name).init-\(UUID().uuidString.prefix(8))"
        do {
            for (path, bytes) in files {
                let url = URL(fileURLWithPath: staging + "/" + path)
                try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url)
            }
            // rename(2) replaces an empty folder and refuses a folder that is not empty.
            guard rename(staging, trimmed) == 0 else {
                let reason = String(cString: strerror(errno))
                throw PackError(.outputFailed, "cannot move the new flow into place: \(reason)", path: folder)
            }
        } catch {
            removeStaging(staging)
            if let error = error as? PackError { throw error }
            throw PackError(.outputFailed, "cannot write the new flow: \(error.localizedDescription)", path: folder)
        }
    }

    private static func read(_ path: String, what: String) throws(PackError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PackError(
                .unreadableFile, "\(what) cannot be read: install Debian's fonts-dejavu-core, or pass --font and --licence", path: path)
        }
        return Array(data)
    }

    private static func removeStaging(_ staging: String) {
        guard FileManager.default.fileExists(atPath: staging) else { return }
        do { try FileManager.default.removeItem(atPath: staging) } catch {
            FileHandle.standardError.write(Data("larder: could not remove the staging folder \(staging): \(error)\n".utf8))
        }
    }
}
