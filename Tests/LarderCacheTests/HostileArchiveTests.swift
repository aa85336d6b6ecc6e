import CArchive
import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// Every hostile archive is refused with its own error, and the cache folder is left exactly
/// as it was: the same files and the same index rows.
@Suite struct HostileArchiveTests {
    static let page = Array("<!doctype html><p>hello</p>".utf8)
    static let style = Array("body { margin: 0 }".utf8)

    /// A manifest for index.html and css/app.css with the right digests.
    static func manifest(listing extra: [(String, [UInt8])] = []) throws -> Manifest {
        try Manifest(
            name: "hostile", entry: "index.html", renderer: .init(),
            files: extra.map { path, bytes in
                .init(path: path, digest: SHA256Hasher.hash(bytes), size: Int64(bytes.count), mediaType: "application/octet-stream", role: .data, essential: false)
            } + [
                .init(path: "index.html", digest: SHA256Hasher.hash(page), size: Int64(page.count), mediaType: "text/html", role: .document, essential: true),
                .init(path: "css/app.css", digest: SHA256Hasher.hash(style), size: Int64(style.count), mediaType: "text/css", role: .style, essential: true),
            ])
    }

    static func archive(_ entries: [TestArchive.Entry], format: TestArchive.Format = .pax, listing extra: [(String, [UInt8])] = []) throws -> [UInt8] {
        let manifest = TestArchive.Entry(path: Array("manifest.json".utf8), data: try manifest(listing: extra).canonicalBytes)
        return TestArchive.make([manifest] + entries, format: format)
    }

    static let good: [TestArchive.Entry] = [.file("css/app.css", style), .file("index.html", page)]

    static func cases() throws -> [(String, [UInt8], FormatError.Code)] {
        let huge = [UInt8](repeating: 0, count: 64 << 20)
        let intact = try archive(good)
        return [
            ("../ path", try archive(good + [.file("../escape.html", page)]), .invalidPath),
            ("nested ../", try archive(good + [.file("css/../../escape.html", page)]), .invalidPath),
            ("absolute path", try archive(good + [.file("/etc/cron.d/evil", page)]), .invalidPath),
            ("symlink inside", try archive(good + [TestArchive.Entry(path: Array("link.html".utf8), type: larder_ae_iflnk(), symlink: "index.html")]), .unsupportedEntryType),
            ("symlink out", try archive(good + [TestArchive.Entry(path: Array("link.html".utf8), type: larder_ae_iflnk(), symlink: "/etc/passwd")]), .unsupportedEntryType),
            ("hard link inside", try archive(good + [TestArchive.Entry(path: Array("copy.html".utf8), hardlink: "index.html")]), .unsupportedEntryType),
            ("hard link out", try archive(good + [TestArchive.Entry(path: Array("copy.html".utf8), hardlink: "/etc/shadow")]), .unsupportedEntryType),
            ("device", try archive(good + [TestArchive.Entry(path: Array("null".utf8), type: larder_ae_ifchr())]), .unsupportedEntryType),
            ("fifo", try archive(good + [TestArchive.Entry(path: Array("pipe".utf8), type: larder_ae_ififo())]), .unsupportedEntryType),
            ("duplicate entry", try archive(good + [.file("index.html", page)]), .duplicateEntry),
            ("missing from manifest", try archive(good + [.file("extra.js", Array("alert(1)".utf8))]), .unexpectedEntry),
            ("extra in manifest", try archive([.file("index.html", page)]), .missingEntry),
            ("digest mismatch", try archive([.file("css/app.css", Array("body { margin: 1 }".utf8)), .file("index.html", page)]), .digestMismatch),
            ("size mismatch", try archive([.file("css/app.css", style + [0x20]), .file("index.html", page)]), .sizeMismatch),
            ("truncated gzip", Array(intact.prefix(intact.count - 30)), .truncated),
            // Listed in the manifest, so the reader has to inflate it to check it.
            ("gzip bomb", try archive([.file("bomb.bin", huge)] + good, listing: [("bomb.bin", huge)]), .limitExceeded),
            ("over-long name", try archive(good + [.file(String(repeating: "x", count: 300) + ".html", page)]), .invalidPath),
            ("non-UTF-8 name", try archive(good + [TestArchive.Entry(path: [0x62, 0xFF, 0x2E, 0x68, 0x74, 0x6D, 0x6C], data: page)], format: .ustar), .invalidPath),
        ]
    }

    @Test func refusesEachHostileArchiveAndChangesNothing() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        // Something legitimate is already there, so "unchanged" means more than "empty".
        _ = try cache.install(archiveAt: try fixture.file(try bundle("resident", ["a.css": "a{}"]).archive))
        let files = fixture.fileList
        let rows = try fixture.indexDump(cache)
        for (name, bytes, code) in try Self.cases() {
            let path = try fixture.file(bytes)
            do throws(CacheError) {
                _ = try cache.install(archiveAt: path)
                Issue.record("\(name): installed")
            } catch {
                #expect(error.code == .invalidBundle, "\(name): \(error)")
                let accepted: Set<FormatError.Code> = code == .truncated ? [.truncated, .malformedArchive] : [code]
                #expect(error.cause.map { accepted.contains($0.code) } == true, "\(name): \(error)")
            }
            #expect(fixture.fileList == files, "\(name) changed the files")
            #expect(try fixture.indexDump(cache) == rows, "\(name) changed the index")
        }
    }

    @Test func refusesMoreEntriesThanTheLimit() throws {
        let fixture = try CacheFixture()
        var limits = ArchiveReader.Limits.default
        limits.maximumEntries = 3
        let cache = try fixture.open(limits: limits)
        let files = fixture.fileList
        let many = Self.good + (0..<5).map { TestArchive.Entry.file("f\($0).txt") }
        #expect { _ = try cache.install(archiveAt: try fixture.file(try Self.archive(many))) } throws: { error in
            (error as? CacheError)?.cause?.code == .limitExceeded
        }
        #expect(fixture.fileList == files)
    }

    @Test func acceptsTheWellFormedControl() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let result = try cache.install(archiveAt: try fixture.file(try Self.archive(Self.good)))
        #expect(try cache.lease(result.bundle).data(at: "index.html") == Self.page)
    }
}
