import Foundation

/// The repository's SampleBundles folder, found above this source file.
public let sampleBundles: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.path + "/SampleBundles") { return url.path + "/SampleBundles" }
    }
    fatalError("SampleBundles not found above \(#filePath)")
}()
