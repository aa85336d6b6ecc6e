import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// Installing from a manifest and object files downloaded one by one: copied or moved in, every
/// file hashed before it is placed, and a wrong one refuses the whole bundle.
@Suite struct ObjectInstallTests {
    /// A manifest for `files` and each file written to `folder`.
    func downloaded(_ files: [String: String], into folder: String) throws -> (Manifest, [Digest: String]) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var entries: [Manifest.File] = []
        var paths: [Digest: String] = [:]
        for (path, text) in files {
            let bytes = Array(text.utf8)
            let digest = SHA256Hasher.hash(bytes)
            entries.append(.init(path: path, digest: digest, size: Int64(bytes.count), mediaType: MediaType.classify(path).mediaType,
                role: MediaType.classify(path).role, essential: true))
            paths[digest] = folder + "/" + digest.hex
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + digest.hex))
        }
        return (try Manifest(name: "parts", entry: "index.html", renderer: .init(), files: entries), paths)
    }

    @Test(arguments: [false, true])
    func installsObjectFilesCopiedOrMoved(adopting: Bool) throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let folder = fixture.root + "/downloads/parts"
        let (manifest, files) = try downloaded(["index.html": "<p>hi", "a.css": "p{}"], into: folder)
        let result = try cache.install(VerifiedManifest(manifest), objectFiles: files, adopting: adopting)
        #expect(result.objectsWritten == 2)
        #expect(try cache.lease(result.bundle).data(at: "a.css") == Array("p{}".utf8))
        #expect(files.values.allSatisfy { FileManager.default.fileExists(atPath: $0) } == !adopting)
        #expect(try cache.verify().isClean)
        #expect(fixture.fileList.filter { $0.hasPrefix("staging/") }.isEmpty)
    }

    /// A downloaded object file replaced by something else (a FIFO would block a plain open)
    /// refuses the bundle before a byte of it is read, copied or moved in.
    @Test(arguments: PlantedFile.allCases, [false, true])
    func aPlantedDownloadRefusesTheBundleInTime(_ planted: PlantedFile, adopting: Bool) throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let folder = fixture.root + "/downloads/parts"
        let (manifest, files) = try downloaded(["index.html": "<p>hi", "a.css": String(repeating: "p{}", count: 100)], into: folder)
        let css = try #require(manifest.file(at: "a.css"))
        guard try planted.plant(at: files[css.digest]!, object: Array(String(repeating: "p{}", count: 100).utf8), scratch: folder) else { return }
        let before = fixture.fileList.filter { !$0.hasPrefix("downloads/") }
        let expected: FormatError.Code = [.longer, .shorter, .empty].contains(planted) ? .sizeMismatch : .unsupportedEntryType
        // A link's target keeps its mode: moving the link in must not make it read-only.
        let target = [.symlinkToSparseFile, .symlinkToIntactCopy].contains(planted)
            ? try FileManager.default.destinationOfSymbolicLink(atPath: files[css.digest]!) : nil
        func mode(_ path: String) throws -> Int? { try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int }
        let targetMode = try target.map(mode)
        do {
            _ = try withWatchdog {
                try cache.install(VerifiedManifest(manifest), objectFiles: files, adopting: adopting)
            }
            Issue.record("\(planted) was installed")
        } catch let error as CacheError {
            #expect(error.code == .invalidBundle, "\(planted): \(error)")
            #expect(error.digest == css.digest)
            #expect(error.cause?.code == expected, "\(planted): \(error)")
        }
        #expect(fixture.fileList.filter { !$0.hasPrefix("downloads/") } == before, "\(planted)")
        #expect(try cache.bundles().isEmpty)
        if let target { #expect(try mode(target) == targetMode, "\(planted)") }
    }

    @Test(arguments: [false, true])
    func aFileThatIsNotItsObjectRefusesTheBundle(adopting: Bool) throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let folder = fixture.root + "/downloads/parts"
        let (manifest, files) = try downloaded(["index.html": "<p>hi", "a.css": "p{}"], into: folder)
        let css = try #require(manifest.file(at: "a.css")).digest
        try Data("p{color:red}".utf8).write(to: URL(fileURLWithPath: files[css]!))
        let before = fixture.fileList.filter { !$0.hasPrefix("downloads/") }
        do {
            _ = try cache.install(VerifiedManifest(manifest), objectFiles: files, adopting: adopting)
            Issue.record("a wrong object was installed")
        } catch {
            #expect(error.code == .invalidBundle)
            #expect(error.digest == css)
            #expect(error.cause?.code == .sizeMismatch)
        }
        #expect(fixture.fileList.filter { !$0.hasPrefix("downloads/") } == before)
        #expect(try cache.bundles().isEmpty)
    }
}
