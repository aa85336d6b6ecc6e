import Foundation
import LarderTestSupport
import LarderFormat
import Testing
@testable import LarderCache

@Suite struct CorruptionTests {
    /// Flips one byte of a stored object file, as disk rot or tampering would.
    static func flipByte(of object: Digest, in fixture: CacheFixture) throws {
        try flipFirstByte(at: CacheLayout(root: fixture.root).objectPath(object))
    }

    @Test func aFlippedByteIsCaughtBeforeAnyCallerSeesIt() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("paywall", ["css/paywall.css": "body { color: gold }"])
        let digest = try cache.install(archiveAt: try fixture.file(archive)).bundle
        let object = manifest.file(at: "css/paywall.css")!.digest
        try Self.flipByte(of: object, in: fixture)

        let lease = try cache.lease(digest)
        #expect { _ = try lease.data(at: "css/paywall.css") } throws: { error in
            guard let error = error as? CacheError else { return false }
            return error.code == .corruptObject && error.digest == object && error.bundles == [digest]
        }
        // Quarantined, the bundle is incomplete, and the file is no longer in the store.
        #expect(try cache.bundle(digest)?.complete == false)
        #expect { _ = try cache.lease(digest) } throws: { ($0 as? CacheError)?.code == .bundleIncomplete }
        #expect(!FileManager.default.fileExists(atPath: CacheLayout(root: fixture.root).objectPath(object)))
        #expect(FileManager.default.fileExists(atPath: fixture.root + "/quarantine/" + object.hex))
        #expect(try cache.statistics().integrityFailures == 1)

        // Refetching the bundle makes it whole again.
        _ = try cache.install(archiveAt: try fixture.file(archive))
        #expect(try cache.lease(digest).data(at: "css/paywall.css") == Array("body { color: gold }".utf8))
    }

    @Test func fileLocationsAreVerifiedToo() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("x", ["img/a.png": "PNGDATA"])
        let digest = try cache.install(archiveAt: try fixture.file(archive)).bundle
        try Self.flipByte(of: manifest.file(at: "img/a.png")!.digest, in: fixture)
        #expect { _ = try cache.lease(digest).fileLocation(at: "img/a.png") } throws: { ($0 as? CacheError)?.code == .corruptObject }
    }

    @Test func verifyRepairRemovesTheObjectAndNamesTheBundlesToRefetch() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let shared = "@font-face{}"
        let one = try cache.install(archiveAt: try fixture.file(try bundle("one", ["s.css": shared]).archive)).bundle
        let two = try cache.install(archiveAt: try fixture.file(try bundle("two", ["s.css": shared, "t.css": "t"]).archive)).bundle
        try Self.flipByte(of: SHA256Hasher.hash(Array(shared.utf8)), in: fixture)

        let check = try cache.verify()
        #expect(!check.isClean)
        #expect(check.corrupt == [SHA256Hasher.hash(Array(shared.utf8))])
        #expect(check.bundlesToRefetch == [one, two].sorted())
        #expect(try cache.bundle(one)?.complete == true)  // without --repair nothing changes

        let repair = try cache.verify(repair: true)
        #expect(repair.bundlesToRefetch == [one, two].sorted())
        #expect(try cache.bundle(one)?.complete == false)
        #expect(try cache.bundle(two)?.complete == false)
        // Afterwards verify agrees with `ls`: nothing corrupt is left, and both bundles are
        // incomplete until they are refetched.
        let after = try cache.verify()
        #expect(after.corrupt.isEmpty)
        #expect(after.incomplete == [one, two].sorted())
        #expect(after.bundlesToRefetch == [one, two].sorted())
        #expect(!after.isClean)
        _ = try cache.install(archiveAt: try fixture.file(try bundle("one", ["s.css": shared]).archive))
        #expect(try cache.verify().incomplete == [two])
    }

    @Test func aMissingObjectFileIsReportedAsCorrupt() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("x", ["a.js": "1"])
        let digest = try cache.install(archiveAt: try fixture.file(archive)).bundle
        let object = manifest.file(at: "a.js")!.digest
        try FileManager.default.removeItem(atPath: CacheLayout(root: fixture.root).objectPath(object))
        #expect { _ = try cache.lease(digest).data(at: "a.js") } throws: { ($0 as? CacheError)?.digest == object }
    }
}
