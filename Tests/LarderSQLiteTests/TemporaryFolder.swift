import Foundation

/// A new folder under the temporary directory for one test.
enum TemporaryFolder {
    static func make(_ name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("larder-sqlite-\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }
}
