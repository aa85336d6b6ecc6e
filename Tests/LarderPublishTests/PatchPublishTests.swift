import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import Testing

/// What `larder publish` writes for a new revision of a plain bundle in an origin folder: a
/// patch where it pays, none where it does not (Docs/Patches.md).
struct PatchPublishTests {
    final class Scratch {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-patch-\(UUID().uuidString)").path
        deinit {
            do { try FileManager.default.removeItem(atPath: path) } catch { print("could not remove \(path): \(error)") }
        }

        /// Packs a flow with a script and an image of these contents.
        func pack(script: String, image: [UInt8], tag: String) throws -> PackReport {
            let source = path + "/source-\(tag)"
            try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
            try #"{"name": "flow", "entry": "index.html"}"#.write(toFile: source + "/larder.json", atomically: true, encoding: .utf8)
            try #"<!doctype html><script src="app.js"></script><img src="photo.bin">"#.write(toFile: source + "/index.html", atomically: true, encoding: .utf8)
            try script.write(toFile: source + "/app.js", atomically: true, encoding: .utf8)
            try Data(image).write(to: URL(fileURLWithPath: source + "/photo.bin"))
            return try Packer.pack(source: source, into: path + "/archives")
        }
    }

    static func noise(_ seed: UInt64, count: Int) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    @Test func aChangedScriptGetsAPatchAndAReplacedImageNone() throws {
        let scratch = Scratch()
        let script = (0..<1_500).map { "  queue.push(step\($0 % 97), callback\($0 % 13));" }.joined(separator: "\n")
        let first = try scratch.pack(script: script, image: Self.noise(1, count: 20_000), tag: "1")
        let second = try scratch.pack(script: script + "\n// one line more", image: Self.noise(2, count: 20_000), tag: "2")
        let origin = scratch.path + "/origin"
        let before = try OriginPublisher.publish(archives: [first.archivePath], to: origin, journey: nil)
        #expect(!before.changed.contains { $0.hasPrefix("patches/") || $0.hasSuffix("/patches.json") }, "nothing to patch from: \(before.changed)")
        let report = try OriginPublisher.publish(archives: [second.archivePath], to: origin, journey: nil)

        let indexPath = PatchIndex.path(bundle: second.bundleDigest)
        let index = try PatchIndex(decoding: [UInt8](try Data(contentsOf: URL(fileURLWithPath: origin + "/" + indexPath))))
        let manifest = try #require(try BundleVerifier.verify(archiveAt: second.archivePath).manifest)
        let old = try #require(try BundleVerifier.verify(archiveAt: first.archivePath).manifest)
        let newScript = try #require(manifest.file(at: "app.js"))
        // Only the script: the image's patch would not be smaller than half the image.
        #expect(index.entries.map(\.to) == [newScript.digest])
        let entry = try #require(index.entries.first)
        #expect(entry.from == old.file(at: "app.js")?.digest && entry.fromSize == old.file(at: "app.js")?.size)
        let patch = [UInt8](try Data(contentsOf: URL(fileURLWithPath: origin + "/" + PatchIndex.path(of: entry.patch))))
        #expect(SHA256Hasher.hash(patch) == entry.patch && Int64(patch.count) == entry.size && patch.count < 100)
        let base = [UInt8](try Data(contentsOf: URL(fileURLWithPath: origin + "/objects/" + entry.from.hex)))
        let made = try ZstdPatch.apply(patch, to: base, outputSize: newScript.size)
        #expect(SHA256Hasher.hash(made) == newScript.digest)
        // The patch and its index were written before the manifest.
        let changed = report.changed
        let order = [PatchIndex.path(of: entry.patch), indexPath, "bundles/\(second.bundleDigest.hex)/manifest.json"].map { changed.firstIndex(of: $0) ?? -1 }
        #expect(order.allSatisfy { $0 >= 0 } && order == order.sorted(), "\(changed)")

        // Publishing it again writes nothing.
        #expect(try OriginPublisher.publish(archives: [second.archivePath], to: origin, journey: nil).changed.isEmpty)
    }

    /// The patch and its index entry together under half of what the object moves whole.
    @Test(arguments: [
        (99, 0, 200, true), (100, 0, 200, false), (100, 0, 199, false), (0, 0, 1, true), (1, 0, 1, false), (40, 290, 661, true),
        (40, 290, 660, false),
    ] as [(Int, Int, Int64, Bool)])
    func aPatchIsKeptUnderHalfTheObjectsTravel(_ patch: Int, _ entry: Int, _ travel: Int64, _ kept: Bool) {
        #expect(PatchPolicy.keeps(patchSize: patch, entrySize: entry, objectTravel: travel) == kept)
    }
}
