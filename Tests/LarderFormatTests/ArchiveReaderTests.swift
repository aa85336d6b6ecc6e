import CArchive
import Foundation
import Testing
@testable import LarderFormat
import LarderTestSupport

@Suite struct ArchiveReaderTests {
    @Test func readsWhatTheWriterWrote() throws {
        let files: [String: [UInt8]] = [
            "index.html": Array("<html></html>".utf8),
            "css/app.css": Array("body{}".utf8),
            "images/é.png": (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) },
        ]
        let (archive, manifest) = try makeBundleArchive(files: files)
        let entries = try TestArchive.readAll(try TestArchive.reader(archive))
        #expect(entries.map(\.0) == ["manifest.json", "css", "css/app.css", "images", "images/é.png", "index.html"])
        #expect(entries[0].1 == manifest.canonicalBytes)
        for (path, bytes) in entries where files[path] != nil { #expect(bytes == files[path]) }
    }

    /// Every hostile entry is refused with its own error code, naming the entry.
    @Test(arguments: [
        ("dot-dot", [TestArchive.Entry.file("../evil.html")], FormatError.Code.invalidPath, "../evil.html"),
        ("nested dot-dot", [.file("a/../../evil.html")], .invalidPath, "a/../../evil.html"),
        ("absolute", [.file("/etc/passwd")], .invalidPath, "/etc/passwd"),
        ("symlink in", [TestArchive.Entry(path: Array("link".utf8), type: larder_ae_iflnk(), symlink: "index.html")], .unsupportedEntryType, "link"),
        ("symlink out", [TestArchive.Entry(path: Array("link".utf8), type: larder_ae_iflnk(), symlink: "/etc/passwd")], .unsupportedEntryType, "link"),
        ("hard link in", [.file("a.txt"), TestArchive.Entry(path: Array("b.txt".utf8), hardlink: "a.txt")], .unsupportedEntryType, "b.txt"),
        ("hard link out", [TestArchive.Entry(path: Array("b.txt".utf8), hardlink: "/etc/passwd")], .unsupportedEntryType, "b.txt"),
        ("char device", [TestArchive.Entry(path: Array("null".utf8), type: larder_ae_ifchr())], .unsupportedEntryType, "null"),
        ("fifo", [TestArchive.Entry(path: Array("pipe".utf8), type: larder_ae_ififo())], .unsupportedEntryType, "pipe"),
        ("duplicate", [.file("a.txt"), .file("a.txt", Array("other".utf8))], .duplicateEntry, "a.txt"),
        ("over-long name", [.file(String(repeating: "n", count: 300) + ".txt")], .invalidPath, nil),
        ("too deep", [.file(String(repeating: "d/", count: 40) + "x.txt")], .invalidPath, nil),
        ("non-NFC", [.file("cafe\u{301}.txt")], .invalidPath, "cafe\u{301}.txt"),
    ] as [(String, [TestArchive.Entry], FormatError.Code, String?)])
    func refusesHostileEntries(_ name: String, _ entries: [TestArchive.Entry], _ code: FormatError.Code, _ entry: String?) throws {
        let bytes = TestArchive.make(entries)
        do throws(FormatError) {
            _ = try TestArchive.readAll(try TestArchive.reader(bytes))
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.code == code, "\(name): \(error)")
            if let entry { #expect(error.entry == entry, "\(name): \(error)") }
        }
    }

    @Test func refusesNonUTF8Names() throws {
        let bytes = TestArchive.make([TestArchive.Entry(path: [0x62, 0x61, 0x64, 0xFF, 0x2E, 0x74, 0x78, 0x74], data: [1])], format: .ustar)
        #expect { _ = try TestArchive.readAll(try TestArchive.reader(bytes)) } throws: { error in
            (error as? FormatError)?.code == .invalidPath && "\(error)".contains("UTF-8")
        }
    }

    /// A pax `size` record of nearly Int64.max after a 4 KiB entry: the total is over the
    /// limit, not an arithmetic overflow that stops the process (libarchive takes pax sizes up
    /// to Int64.max - 1; the sum with the 4 KiB before overflowed).
    @Test(arguments: [Int64.max - 1, Int64.max - 807, 1 << 62])
    func refusesAPaxSizeThatWouldOverflowTheTotal(_ size: Int64) throws {
        var tar = Self.ustarHeader(name: "a.txt", size: 4096) + [UInt8](repeating: 0x61, count: 4096)
        let record = Self.paxRecord("size", String(size))
        tar += Self.ustarHeader(name: "PaxHeader/b.txt", size: record.count, type: UInt8(ascii: "x"))
        tar += record + [UInt8](repeating: 0, count: (512 - record.count % 512) % 512)
        tar += Self.ustarHeader(name: "b.txt", size: 0) + [UInt8](repeating: 0, count: 1024)
        let reader = try TestArchive.reader(tar)
        #expect(try reader.next()?.path == "a.txt")
        #expect { _ = try reader.next() } throws: { error in
            (error as? FormatError)?.code == .limitExceeded && (error as? FormatError)?.entry == "b.txt"
        }
    }

    /// A ustar header block with its checksum.
    static func ustarHeader(name: String, size: Int, type: UInt8 = UInt8(ascii: "0")) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int) { for (index, byte) in text.utf8.enumerated() { block[offset + index] = byte } }
        put(name, at: 0)
        put("0000644", at: 100)
        put("0000000", at: 108)
        put("0000000", at: 116)
        put(String(format: "%011o", size), at: 124)
        put("00000000000", at: 136)
        block[156] = type
        put("ustar", at: 257)
        put("00", at: 263)
        put("        ", at: 148)
        put(String(format: "%06o", block.reduce(0) { $0 + Int($1) }), at: 148)
        block[154] = 0
        return block
    }

    /// One pax extended-header record, "<length> <key>=<value>\n", its length counting itself.
    static func paxRecord(_ key: String, _ value: String) -> [UInt8] {
        let body = " \(key)=\(value)\n"
        var length = body.utf8.count + 1
        while String(length).utf8.count + body.utf8.count != length { length = String(length).utf8.count + body.utf8.count }
        return Array((String(length) + body).utf8)
    }

    @Test func refusesMoreEntriesThanTheLimit() throws {
        let bytes = TestArchive.make((0..<20).map { .file("f\($0).txt") })
        var limits = ArchiveReader.Limits.default
        limits.maximumEntries = 10
        #expect { _ = try TestArchive.readAll(try TestArchive.reader(bytes, limits: limits)) } throws: { error in
            (error as? FormatError)?.code == .limitExceeded
        }
    }

    @Test func refusesMoreBytesThanTheLimit() throws {
        let bytes = TestArchive.make([.file("a.bin", [UInt8](repeating: 1, count: 5000)), .file("b.bin", [UInt8](repeating: 2, count: 5000))])
        var limits = ArchiveReader.Limits.default
        limits.maximumTotalBytes = 8000
        #expect { _ = try TestArchive.readAll(try TestArchive.reader(bytes, limits: limits)) } throws: { error in
            (error as? FormatError)?.code == .limitExceeded && (error as? FormatError)?.entry == "b.bin"
        }
    }

    @Test func refusesAGzipBomb() throws {
        // 64 MiB of zeros compress about 1000:1, far past the 200:1 limit.
        let bytes = TestArchive.make([.file("bomb.bin", [UInt8](repeating: 0, count: 64 << 20))])
        #expect(bytes.count < 200_000)
        #expect { _ = try TestArchive.readAll(try TestArchive.reader(bytes)) } throws: { error in
            (error as? FormatError)?.code == .limitExceeded && (error as? FormatError)?.entry == "bomb.bin"
        }
    }

    @Test func refusesTruncatedGzip() throws {
        let data = (0..<400_000).map { UInt8(truncatingIfNeeded: ($0 &* 2654435761) >> 13) }
        for gzip in [ArchiveGzip.members(), .singleStream] {
        let (archive, _) = try makeBundleArchive(files: ["index.html": Array("<p>".utf8), "big.bin": data], gzip: gzip)
        for cut in [archive.count / 2, archive.count - 20, 30] {
            do throws(FormatError) {
                _ = try TestArchive.readAll(try TestArchive.reader(Array(archive.prefix(cut))))
                Issue.record("archive cut at \(cut) of \(archive.count) bytes was accepted")
            } catch {
                #expect(error.code == .truncated || error.code == .malformedArchive, "\(error)")
            }
        }
        }
    }

    @Test func refusesGarbage() throws {
        #expect(throws: FormatError.self) { _ = try TestArchive.readAll(try TestArchive.reader(Array("not an archive at all".utf8))) }
    }
}
