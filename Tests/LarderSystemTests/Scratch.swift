import Foundation

/// A fresh folder under the temporary directory, removed when released.
final class Scratch {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-system-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        do { try FileManager.default.removeItem(atPath: path) } catch { print("could not remove \(path): \(error)") }
    }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + name))
    }

    func read(_ name: String) -> String? {
        FileManager.default.contents(atPath: path + "/" + name).map { String(decoding: $0, as: UTF8.self) }
    }
}
