import Foundation

/// A scratch source folder for one test (`root`, packed into `output` beside it), removed when
/// the test ends.
public final class SourceFolder {
    public let root: String
    public let output: String

    public init(_ files: [String: String] = [:]) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("larder-source-\(UUID().uuidString)").path
        root = base + "/src"
        output = base + "/out"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (path, text) in files { try write(path, Array(text.utf8)) }
    }

    deinit {
        let base = (root as NSString).deletingLastPathComponent
        do { try FileManager.default.removeItem(atPath: base) } catch { print("could not remove \(base): \(error)") }
    }

    /// Writes a file under the root, making its folders.
    public func write(_ path: String, _ bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: root + "/" + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// Gives every file and folder under the root these permissions.
    public func setModes(file: Int, folder: Int) throws {
        let manager = FileManager.default
        for path in try manager.subpathsOfDirectory(atPath: root) {
            var isFolder: ObjCBool = false
            _ = manager.fileExists(atPath: root + "/" + path, isDirectory: &isFolder)
            try manager.setAttributes([.posixPermissions: isFolder.boolValue ? folder : file], ofItemAtPath: root + "/" + path)
        }
    }

    /// Files left in the output folder (none after a failure).
    public var outputFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
    }
}
