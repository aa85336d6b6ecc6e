import Foundation

/// A scratch source folder for one publish test (packed into `output`), removed when the test ends.
final class SourceFolder {
    let root: String
    let output: String

    init(_ files: [String: String] = [:]) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("larder-publish-\(UUID().uuidString)").path
        root = base + "/src"
        output = base + "/out"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (path, text) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    deinit {
        let base = (root as NSString).deletingLastPathComponent
        do { try FileManager.default.removeItem(atPath: base) } catch { print("could not remove \(base): \(error)") }
    }
}
