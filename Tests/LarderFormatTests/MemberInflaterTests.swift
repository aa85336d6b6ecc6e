import CZlib
import Foundation
import LarderTestSupport
import Testing
@testable import LarderFormat

/// Archives of sized gzip members are inflated on several threads; every kind of damage to
/// their framing or data is a typed error; everything else takes libarchive's zlib path.
@Suite struct MemberInflaterTests {
    /// Text and noise, so that the members are of both kinds (noise barely shrinks).
    static let files: [String: [UInt8]] = [
        "index.html": Array("<!doctype html><p>hello</p>".utf8),
        "app.js": ParallelGzipWriterTests.text(500_000),
        "photo.bin": noise(300_000),
    ]

    static func noise(_ count: Int, seed: UInt64 = 7) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// The archive in 64 KiB pieces: about 13 members.
    static func archive() throws -> [UInt8] {
        try makeBundleArchive(files: files, gzip: .members(pieceSize: 64 << 10)).archive
    }

    static func reader(
        _ bytes: [UInt8], limits: ArchiveReader.Limits = .default, inflation: MemberInflater.Configuration = .default
    ) throws(FormatError) -> ArchiveReader {
        let source = MemorySource(bytes)
        return try ArchiveReader(limits: limits, displayName: "test.tar.gz", inflation: inflation) { (buffer) throws(FormatError) in
            source.read(into: buffer)
        }
    }

    static func check(_ entries: [(String, [UInt8])]) {
        #expect(entries.map(\.0) == ["manifest.json", "app.js", "index.html", "photo.bin"])
        for (path, bytes) in entries where files[path] != nil { #expect(bytes == files[path], "\(path)") }
    }

    @Test(arguments: [(1, 1), (1, 4), (2, 2), (2, 6), (4, 16)])
    func readsSizedMembersOnAnyNumberOfThreads(_ concurrency: Int, _ inFlight: Int) throws {
        let bytes = try Self.archive()
        #expect(sizedGzipMembers(bytes).count > 10)
        let reader = try Self.reader(bytes, inflation: .init(concurrency: concurrency, maxInFlight: inFlight))
        Self.check(try TestArchive.readAll(reader))
        #expect(reader.inflatesMembers)
    }

    /// Many members, at most 3 held at once: the reader reads ahead up to the bound, never past.
    @Test func holdsNoMoreMembersThanTheBound() throws {
        let bytes = try Self.archive()
        let reader = try Self.reader(bytes, inflation: .init(concurrency: 2, maxInFlight: 3))
        Self.check(try TestArchive.readAll(reader))
        #expect(reader.peakMembersInFlight == 3)
        let byBytes = try Self.reader(bytes, inflation: .init(concurrency: 2, maxInFlight: 16, bytesInFlight: 100_000))
        Self.check(try TestArchive.readAll(byBytes))
        #expect(byBytes.peakMembersInFlight >= 1 && byBytes.peakMembersInFlight <= 2, "\(byBytes.peakMembersInFlight)")
    }

    /// A single gzip stream (archives before issue 14), libarchive's own gzip, and members
    /// without the size field all go through libarchive's zlib path, as before.
    @Test func otherGzipStreamsTakeTheZlibPath() throws {
        let single = try makeBundleArchive(files: Self.files, gzip: .singleStream).archive
        let reader = try Self.reader(single)
        Self.check(try TestArchive.readAll(reader))
        #expect(!reader.inflatesMembers)

        let foreign = TestArchive.make([.file("a.txt"), .file("b.txt", Array("second".utf8))])
        let foreignReader = try Self.reader(foreign)
        #expect(try TestArchive.readAll(foreignReader).map(\.0) == ["a.txt", "b.txt"])
        #expect(!foreignReader.inflatesMembers)

        // The same members with their extra field taken out: plain multi-member gzip.
        let plain = Self.withoutSizeFields(try Self.archive())
        let plainReader = try Self.reader(plain)
        Self.check(try TestArchive.readAll(plainReader))
        #expect(!plainReader.inflatesMembers)
    }

    /// Each member rewritten with FLG 0 and no extra field.
    static func withoutSizeFields(_ bytes: [UInt8]) -> [UInt8] {
        sizedGzipMembers(bytes).flatMap { range -> [UInt8] in
            var header = Array(bytes[range.lowerBound..<range.lowerBound + 10])
            header[3] = 0
            return header + bytes[(range.lowerBound + 20)..<range.upperBound]
        }
    }

    // MARK: Damage

    /// Sets the 4 little-endian bytes at `offset` to `value`.
    static func patched(_ bytes: [UInt8], at offset: Int, _ value: Int) -> [UInt8] {
        var copy = bytes
        for byte in 0..<4 { copy[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        return copy
    }

    static func damaged() throws -> [(String, [UInt8], FormatError.Code)] {
        let bytes = try archive()
        let members = sizedGzipMembers(bytes)
        let second = members[1]
        let last = members[members.count - 1]
        var crc = bytes
        crc[second.upperBound - 8] ^= 0x01
        var data = bytes
        data[second.lowerBound + 20 + 100] ^= 0x55
        let plainMember = withoutSizeFields(Array(bytes[second]))
        // Four bytes slipped in before the second member's trailer, its size field grown to match.
        var padded = Array(bytes[second])
        padded.insert(contentsOf: [0, 0, 0, 0], at: padded.count - 8)
        padded = patched(padded, at: 16, padded.count)
        let paddedArchive = Array(bytes[..<second.lowerBound]) + padded + bytes[second.upperBound...]
        return [
            ("cut inside a member", Array(bytes[..<(second.lowerBound + 300)]), .truncated),
            ("trailer missing", Array(bytes.dropLast(8)), .truncated),
            ("cut inside a header", Array(bytes[..<(second.upperBound + 7)]), .truncated),
            ("cut at a member boundary inside a file", Array(bytes[..<members[4].lowerBound]), .truncated),
            ("size past the end", patched(bytes, at: last.lowerBound + 16, last.count + 100), .truncated),
            ("size into the next member", patched(bytes, at: second.lowerBound + 16, second.count + 10), .malformedArchive),
            ("size short of the member", patched(bytes, at: second.lowerBound + 16, second.count - 10), .malformedArchive),
            ("size below a header and trailer", patched(bytes, at: second.lowerBound + 16, 20), .malformedArchive),
            ("size past the limit", patched(bytes, at: second.lowerBound + 16, 17 << 20), .limitExceeded),
            ("ISIZE past the limit", patched(bytes, at: second.upperBound - 4, (16 << 20) + 1), .limitExceeded),
            ("ISIZE too small", patched(bytes, at: second.upperBound - 4, (64 << 10) - 1), .malformedArchive),
            ("ISIZE too large", patched(bytes, at: second.upperBound - 4, (64 << 10) + 1), .malformedArchive),
            ("bytes between the deflate data and the trailer", paddedArchive, .malformedArchive),
            ("CRC mismatch", crc, .malformedArchive),
            ("damaged deflate data", data, .malformedArchive),
            ("trailing garbage", bytes + Array("garbage".utf8), .malformedArchive),
            ("trailing zeros", bytes + [UInt8](repeating: 0, count: 512), .malformedArchive),
            ("a member without the size field after the last", bytes + plainMember, .malformedArchive),
            ("a member without the size field in the middle", Array(bytes[..<second.lowerBound]) + plainMember + bytes[second.upperBound...], .malformedArchive),
        ]
    }

    @Test func eachKindOfDamageIsItsOwnTypedError() throws {
        for (name, bytes, code) in try Self.damaged() {
            for concurrency in [1, 2] {
                do throws(FormatError) {
                    let reader = try Self.reader(bytes, inflation: .init(concurrency: concurrency, maxInFlight: 4))
                    #expect(reader.inflatesMembers, "\(name)")
                    _ = try TestArchive.readAll(reader)
                    Issue.record("\(name): accepted")
                } catch {
                    #expect(error.code == code, "\(name): \(error)")
                    #expect(error.path == "test.tar.gz", "\(name): \(error)")
                }
            }
        }
    }

    /// 1 MiB members of zeros shrink about 1000:1: the ratio check stops them as on the zlib path.
    @Test func refusesAGzipBombOfSizedMembers() throws {
        let (bytes, _) = try makeBundleArchive(
            files: ["index.html": Array("<p>".utf8), "bomb.bin": [UInt8](repeating: 0, count: 64 << 20)])
        #expect(bytes.count < 200_000)
        #expect(sizedGzipMembers(bytes).count >= 64)
        let reader = try Self.reader(bytes)
        #expect(reader.inflatesMembers)
        #expect { _ = try TestArchive.readAll(reader) } throws: { error in
            (error as? FormatError)?.code == .limitExceeded && (error as? FormatError)?.entry == "bomb.bin"
        }
    }

    @Test func keepsTheEntryLimits() throws {
        var limits = ArchiveReader.Limits.default
        limits.maximumEntries = 2
        let reader = try Self.reader(try Self.archive(), limits: limits)
        #expect(reader.inflatesMembers)
        #expect { _ = try TestArchive.readAll(reader) } throws: { error in (error as? FormatError)?.code == .limitExceeded }
        limits = .default
        limits.maximumTotalBytes = 600_000
        #expect { _ = try TestArchive.readAll(try Self.reader(try Self.archive(), limits: limits)) } throws: { error in
            (error as? FormatError)?.code == .limitExceeded
        }
    }

    /// A source error while members are read ahead reaches the caller as it is.
    @Test func sourceErrorsReachTheCaller() throws {
        let bytes = try Self.archive()
        let cut = sizedGzipMembers(bytes)[3].lowerBound + 50
        var offset = 0
        let reader = try ArchiveReader(displayName: "x", inflation: .init(concurrency: 2, maxInFlight: 4)) { (buffer) throws(FormatError) in
            guard offset < cut else { throw FormatError(.io, "connection reset") }
            let count = min(buffer.count, cut - offset)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
            offset += count
            return count
        }
        #expect(reader.inflatesMembers)
        #expect { _ = try TestArchive.readAll(reader) } throws: { error in (error as? FormatError)?.message == "connection reset" }
    }
}
