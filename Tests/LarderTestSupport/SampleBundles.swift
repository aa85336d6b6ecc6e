import Foundation

/// The path of `relative` (a file or folder of the repository), found above this source file.
public func repositoryPath(_ relative: String) -> String {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.path + "/" + relative) { return url.path + "/" + relative }
    }
    fatalError("\(relative) not found above \(#filePath)")
}

/// The repository's SampleBundles folder.
public let sampleBundles = repositoryPath("SampleBundles")

/// Copies the source folder `source` to `folder` with its `larder.json`'s `"fonts"` settings
/// replaced by `fonts` (JSON text, e.g. `{"woff2": false}` for the fonts as written), the
/// other settings kept; returns `folder`.
public func copySource(_ source: String, to folder: String, fonts: String) throws -> String {
    try FileManager.default.createDirectory(atPath: (folder as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: source, toPath: folder)
    let path = folder + "/larder.json"
    var configuration: [String: Any] = [:]
    if let bytes = FileManager.default.contents(atPath: path) {
        guard let object = try JSONSerialization.jsonObject(with: bytes) as? [String: Any] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path])
        }
        configuration = object
    }
    configuration["fonts"] = try JSONSerialization.jsonObject(with: Data(fonts.utf8))
    try JSONSerialization.data(withJSONObject: configuration, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
    return folder
}
