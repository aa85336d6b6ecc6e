import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderPack

/// The `"runtime"` switch of larder.json: on, the packer adds the page runtime as an essential
/// `larder.js`; absent or off, the bundle is exactly what it was before the switch existed.
@Suite struct PageRuntimePackTests {
    static let page = #"<!doctype html><html><head><script type="module" src="app.js"></script></head><body>Hi</body></html>"#
    static let script = #"import { larder } from "./larder.js"; larder.ready();"#

    @Test func theSwitchAddsTheRuntimeAsAnEssentialScript() throws {
        let folder = try SourceFolder(["index.html": Self.page, "app.js": Self.script, "larder.json": #"{"runtime": true}"#])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        let manifest = try BundlePlan.analyse(source: folder.root).manifest
        let runtime = try #require(manifest.file(at: "larder.js"))
        #expect(runtime.essential && runtime.role == .script && runtime.mediaType.hasPrefix("text/javascript"))
        #expect(runtime.digest == SHA256Hasher.hash(PageRuntime.scriptBytes))
        #expect(report.warnings.isEmpty, "\(report.warnings)")
        let listing = try tarListing(report.archivePath)
        #expect(listing.contains("larder.js"))
    }

    @Test func withoutTheSwitchOrWithItOffTheBundleIsByteIdentical() throws {
        let plain = try SourceFolder(["index.html": Self.page, "app.js": "console.log(1);", "larder.json": #"{"name": "flow"}"#])
        let off = try SourceFolder(["index.html": Self.page, "app.js": "console.log(1);", "larder.json": #"{"name": "flow", "runtime": false}"#])
        let first = try Packer.pack(source: plain.root, into: plain.output)
        let second = try Packer.pack(source: off.root, into: off.output)
        #expect(first.bundleDigest == second.bundleDigest && first.archiveDigest == second.archiveDigest)
        #expect(try BundlePlan.analyse(source: plain.root).manifest.file(at: "larder.js") == nil)
    }

    @Test func aFolderWithItsOwnLarderJSIsRefusedWithTheSwitchOn() throws {
        let folder = try SourceFolder(["index.html": Self.page, "app.js": Self.script, "larder.js": "// mine", "larder.json": #"{"runtime": true}"#])
        let errors = folder.packFailure()
        #expect(errors.count == 1)
        #expect(errors.first?.code == .invalidConfiguration && errors.first?.path == "larder.js")
        #expect(errors.first?.message.contains("has its own 'larder.js'") == true, "\(errors)")
        #expect(folder.outputFiles.isEmpty)
    }

    @Test func aSwitchThatIsNotABooleanIsAClearError() throws {
        let folder = try SourceFolder(["index.html": Self.page, "app.js": Self.script, "larder.json": #"{"runtime": "yes"}"#])
        let errors = folder.packFailure()
        #expect(errors.map(\.code) == [.invalidConfiguration])
        #expect(errors.first?.message == "field 'runtime': expected true or false, found a string", "\(errors)")
    }

    @Test func theReadyCapabilityIsWrittenToTheManifest() throws {
        let folder = try SourceFolder([
            "index.html": Self.page, "app.js": Self.script,
            "larder.json": #"{"runtime": true, "renderer": {"capabilities": ["prepare", "visibility", "ready"]}}"#,
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        let manifest = try BundlePlan.analyse(source: folder.root).manifest
        #expect(manifest.renderer.capabilities == [.prepare, .visibility, .ready])
        #expect(String(decoding: manifest.canonicalBytes, as: UTF8.self).contains(#""capabilities":["prepare","ready","visibility"]"#))
        #expect(FileManager.default.fileExists(atPath: report.archivePath))
    }

    /// The archive's entry names, read by the system's tar.
    private func tarListing(_ archive: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tar")
        process.arguments = ["-tzf", archive]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
