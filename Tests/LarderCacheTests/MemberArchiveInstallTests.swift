import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// Installs read archives of sized gzip members (inflated on several threads) and archives
/// written before them (one gzip stream, inflated by zlib) alike; a damaged member is refused
/// and leaves the cache as it was.
@Suite struct MemberArchiveInstallTests {
    static let files: [String: [UInt8]] = [
        "index.html": Array("<!doctype html><title>members</title>".utf8),
        "app.js": Array(String(repeating: "function f(a) { return a * 2 }\n", count: 20_000).utf8),
        "photo.jpg": noise(400_000, seed: 5),
    ]

    static func archive(_ gzip: ArchiveGzip) throws -> (archive: [UInt8], manifest: Manifest) {
        try makeBundleArchive(files: files, name: "members", gzip: gzip)
    }

    @Test(arguments: [ArchiveGzip.members(pieceSize: 64 << 10), .members(), .singleStream])
    func installsEitherKindFromAFileAndFromAStream(_ gzip: ArchiveGzip) throws {
        let (archive, manifest) = try Self.archive(gzip)
        if case .members(let pieceSize, _) = gzip {
            #expect(sizedGzipMembers(archive).count >= (pieceSize == 64 << 10 ? 10 : 1))
            #expect(sizedGzipMembers(archive).last?.upperBound == archive.count)
        } else {
            #expect(sizedGzipMembers(archive).isEmpty)
        }
        let fromFile = try CacheFixture()
        let cache = try fromFile.open()
        let result = try cache.install(archiveAt: try fromFile.file(archive), expected: manifest.bundleDigest)
        #expect(result.objectsWritten == 3)
        for (path, bytes) in Self.files { #expect(try cache.lease(result.bundle).data(at: path) == bytes, "\(path)") }

        let streamed = try CacheFixture()
        let other = try streamed.open()
        let source = MemorySourceBox(archive)
        let again = try other.install(expected: manifest.bundleDigest) { (buffer) throws(FormatError) in source.read(into: buffer) }
        for (path, bytes) in Self.files { #expect(try other.lease(again.bundle).data(at: path) == bytes, "\(path)") }
    }

    /// The bundle digest is the manifest's: the same files give the same bundle whichever way
    /// the archive was compressed.
    @Test func theBundleDigestDoesNotDependOnTheGzipFraming() throws {
        let members = try Self.archive(.members(pieceSize: 64 << 10))
        let single = try Self.archive(.singleStream)
        #expect(members.archive != single.archive)
        #expect(members.manifest.bundleDigest == single.manifest.bundleDigest)
    }

    @Test func refusesDamagedMembersAndChangesNothing() throws {
        let (archive, _) = try Self.archive(.members(pieceSize: 64 << 10))
        let members = sizedGzipMembers(archive)
        #expect(members.count > 8)
        let third = members[2]
        var crc = archive
        crc[third.upperBound - 6] ^= 0x10
        var size = archive
        size[third.lowerBound + 16] &+= 3
        let cases: [(String, [UInt8], FormatError.Code)] = [
            ("cut inside a member", Array(archive[..<(third.lowerBound + 1000)]), .truncated),
            ("CRC mismatch", crc, .malformedArchive),
            ("lying size field", size, .malformedArchive),
            ("trailing garbage", archive + [0x1f, 0x8b, 0, 0], .malformedArchive),
        ]
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        _ = try cache.install(archiveAt: try fixture.file(try bundle("resident", ["a.css": "a{}"]).archive))
        let files = fixture.fileList
        let rows = try fixture.indexDump(cache)
        for (name, bytes, code) in cases {
            let path = try fixture.file(bytes)
            for streamed in [false, true] {
                do throws(CacheError) {
                    if streamed {
                        let source = MemorySourceBox(bytes)
                        _ = try cache.install { (buffer) throws(FormatError) in source.read(into: buffer) }
                    } else {
                        _ = try cache.install(archiveAt: path)
                    }
                    Issue.record("\(name): installed")
                } catch {
                    #expect(error.code == .invalidBundle, "\(name): \(error)")
                    #expect(error.cause?.code == code, "\(name): \(error)")
                }
                #expect(fixture.fileList == files, "\(name) changed the files")
                #expect(try fixture.indexDump(cache) == rows, "\(name) changed the index")
            }
        }
    }
}
