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
