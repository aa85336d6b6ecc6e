import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderSystem
import LarderTestSupport
import Testing

/// A publish's progress callback sees the bytes written rise to the total, and changes nothing
/// of what is written.
struct PublishProgressTests {
    /// Reports as they come, from any thread.
    final class Recorder: Sendable {
        let reports = Locked<[PublishProgress]>([])
        var callback: @Sendable (PublishProgress) -> Void { { progress in self.reports.withLock { $0.append(progress) } } }
        var all: [PublishProgress] { reports.withLock { $0 } }
    }

    /// Every file under `folder` with its bytes, by path relative to it.
    static func tree(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue,
                !path.hasSuffix(".lock")
            else { continue }
            files[path] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path))
        }
        return files
    }

    static func expectRisingToTheTotal(_ reports: [PublishProgress], total: Int64) {
        #expect(reports.count >= 4, "\(reports)")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytes < $1.bytes && $0.totalBytes <= $1.totalBytes }, "\(reports)")
        #expect(reports.allSatisfy { $0.bytes <= $0.totalBytes }, "\(reports)")
        #expect(reports.last == PublishProgress(bytes: total, totalBytes: total), "\(reports)")
    }

    @Test func aFolderPublishReportsEveryByteAndWritesTheSameOrigin() throws {
        let source = try SourceFolder([
            "larder.json": #"{"name": "flow", "entry": "index.html"}"#,
            "index.html": #"<!doctype html><script src="a.js"></script><script src="b.js"></script>"#,
            "a.js": String(repeating: "console.log('a');\n", count: 5_000),
            "b.js": String(repeating: "console.log('b');\n", count: 7_000),
        ])
        let packed = try Packer.pack(source: source.root, into: source.output)
        let recorder = Recorder()
        let withProgress = source.output + "/with"
        let without = source.output + "/without"
        _ = try OriginPublisher.publish(archives: [packed.archivePath], to: withProgress, journey: JourneyPublication(id: "flow", key: "pk"), progress: recorder.callback)
        _ = try OriginPublisher.publish(archives: [packed.archivePath], to: without, journey: JourneyPublication(id: "flow", key: "pk"))

        let archiveSize = try FileStatus.ofLink(packed.archivePath).size
        let manifest = try Data(contentsOf: URL(fileURLWithPath: withProgress + "/bundles/\(packed.bundleDigest.hex)/manifest.json"))
        let files = try #require(try BundleVerifier.verify(archiveAt: packed.archivePath).manifest).files
        Self.expectRisingToTheTotal(recorder.all, total: files.reduce(0) { $0 + $1.size } + Int64(manifest.count) + archiveSize)
        let (a, b) = (try Self.tree(withProgress), try Self.tree(without))
        #expect(a.keys.sorted() == b.keys.sorted())
        // The journey documents differ only in their publication time; everything else is the same bytes.
        for path in a.keys where !path.hasPrefix("journeys/") { #expect(a[path] == b[path], "\(path)") }
    }

    @Test func anUploadReportsEveryFileSentAndSendsTheSame() throws {
        let source = try SourceFolder([
            "larder.json": #"{"name": "flow", "entry": "index.html"}"#,
            "index.html": #"<!doctype html><script src="a.js"></script>"#,
            "a.js": String(repeating: "console.log('a');\n", count: 5_000),
        ])
        let packed = try Packer.pack(source: source.root, into: source.output)
        let folder = source.output + "/origin"
        _ = try OriginPublisher.publish(archives: [packed.archivePath], to: folder, journey: nil)
        let recorder = Recorder()
        let report = try OriginPublisher.upload(folder: folder, to: LocalFolderTarget(folder: source.output + "/with"), progress: recorder.callback)
        _ = try OriginPublisher.upload(folder: folder, to: LocalFolderTarget(folder: source.output + "/without"))

        let sent = try report.changed.reduce(Int64(0)) { $0 + (try FileStatus.ofLink(folder + "/" + $1).size) }
        Self.expectRisingToTheTotal(recorder.all, total: sent)
        #expect(try Self.tree(source.output + "/with") == (try Self.tree(source.output + "/without")))
    }

    @Test func archivesSentToATargetReportEveryFileSent() throws {
        let source = try SourceFolder([
            "larder.json": #"{"name": "flow", "entry": "index.html"}"#,
            "index.html": #"<!doctype html><script src="a.js"></script><script src="b.js"></script>"#,
            "a.js": String(repeating: "console.log('a');\n", count: 5_000),
            "b.js": String(repeating: "console.log('b');\n", count: 6_000),
        ])
        let packed = try Packer.pack(source: source.root, into: source.output)
        let recorder = Recorder()
        let target = source.output + "/with"
        let report = try OriginPublisher.publish(
            archives: [packed.archivePath], to: LocalFolderTarget(folder: target), journey: nil, staging: source.output + "/staging",
            progress: recorder.callback)
        _ = try OriginPublisher.publish(
            archives: [packed.archivePath], to: LocalFolderTarget(folder: source.output + "/without"), journey: nil, staging: source.output + "/staging")

        let sent = try report.changed.reduce(Int64(0)) { $0 + (try FileStatus.ofLink(target + "/" + $1).size) }
        Self.expectRisingToTheTotal(recorder.all, total: sent)
        #expect(try Self.tree(target) == (try Self.tree(source.output + "/without")))
    }
}
