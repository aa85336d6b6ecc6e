import Foundation
import Testing
@testable import LarderFormat
import LarderTestSupport

@Suite struct BundleVerifierTests {
    static let files: [String: [UInt8]] = [
        "index.html": Array("<!doctype html><link rel=stylesheet href=app.css>".utf8),
        "app.css": Array("body { color: red }".utf8),
        "logo.png": (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 131) },
    ]

    func write(_ bytes: [UInt8], name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("verifier-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func acceptsAnIntactArchiveAndChecksTheNameDigest() throws {
        let (archive, manifest) = try makeBundleArchive(files: Self.files)
        let path = try write(archive, name: manifest.bundleDigest.hex + ".tar.gz")
        let report = try BundleVerifier.verify(archiveAt: path)
        #expect(report.isIntact, "\(report.problems)")
        #expect(report.filesVerified == 3)
        #expect(report.bundleDigest == manifest.bundleDigest)
    }

    @Test func namesTheEntryWhoseBytesChanged() throws {
        var files = Self.files
        let (_, original) = try makeBundleArchive(files: files)
        files["app.css"] = Array("body { color: tan }".utf8)  // same size, other bytes
        // An archive whose manifest still describes the original files.
        var output: [UInt8] = []
        let gzip = ParallelGzipWriter(level: 6) { (bytes) throws(FormatError) in output.append(contentsOf: bytes) }
        let tar = try TarWriter { (bytes) throws(FormatError) in try gzip.write(bytes) }
        try tar.addFile(path: Manifest.entryName, bytes: original.canonicalBytes)
        for file in original.files { try tar.addFile(path: file.path, bytes: files[file.path]!) }
        try tar.finish()
        try gzip.finish()
        let report = try BundleVerifier.verify(archiveAt: try write(output, name: "x.tar.gz"))
        #expect(!report.isIntact)
        #expect(report.problems.map(\.code) == [.digestMismatch])
        #expect(report.problems.first?.entry == "app.css")
    }

    @Test func reportsAnEditedManifestAgainstTheFileName() throws {
        let (_, manifest) = try makeBundleArchive(files: Self.files)
        let (edited, _) = try makeBundleArchive(files: Self.files, name: "renamed")
        let report = try BundleVerifier.verify(archiveAt: try write(edited, name: manifest.bundleDigest.hex + ".tar.gz"))
        #expect(report.problems.map(\.code) == [.digestMismatch])
        #expect(report.problems.first?.entry == Manifest.entryName)
    }

    @Test func reportsMissingAndExtraEntries() throws {
        let (_, manifest) = try makeBundleArchive(files: Self.files)
        var output: [UInt8] = []
        let gzip = ParallelGzipWriter(level: 6) { (bytes) throws(FormatError) in output.append(contentsOf: bytes) }
        let tar = try TarWriter { (bytes) throws(FormatError) in try gzip.write(bytes) }
        try tar.addFile(path: Manifest.entryName, bytes: manifest.canonicalBytes)
        try tar.addFile(path: "app.css", bytes: Self.files["app.css"]!)
        try tar.addFile(path: "extra.js", bytes: Array("alert(1)".utf8))
        try tar.addFile(path: "index.html", bytes: Self.files["index.html"]!)
        try tar.finish()
        try gzip.finish()
        let report = try BundleVerifier.verify(archiveAt: try write(output, name: "y.tar.gz"))
        #expect(report.problems.map(\.code) == [.unexpectedEntry, .missingEntry])
        #expect(report.problems.map(\.entry) == ["extra.js", "logo.png"])
    }

    @Test func requiresTheManifestFirst() throws {
        var output: [UInt8] = []
        let gzip = ParallelGzipWriter(level: 6) { (bytes) throws(FormatError) in output.append(contentsOf: bytes) }
        let tar = try TarWriter { (bytes) throws(FormatError) in try gzip.write(bytes) }
        try tar.addFile(path: "index.html", bytes: Self.files["index.html"]!)
        try tar.finish()
        try gzip.finish()
        let report = try BundleVerifier.verify(archiveAt: try write(output, name: "z.tar.gz"))
        #expect(report.problems.map(\.code) == [.missingEntry])
    }

    @Test func reportsTruncation() throws {
        let (archive, manifest) = try makeBundleArchive(files: Self.files)
        let report = try BundleVerifier.verify(archiveAt: try write(Array(archive.prefix(archive.count - 40)), name: manifest.bundleDigest.hex + ".tar.gz"))
        #expect(!report.isIntact)
        #expect(report.problems.contains { $0.code == .truncated || $0.code == .malformedArchive })
    }
}
