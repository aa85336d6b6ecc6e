import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// A fetch's hold on the objects it found in place (`holdObjects(of:)`): from that decision to
/// its install, no eviction, removal or sweep (through another handle on the cache, as another
/// process would) takes them, so the install finds every object it did not download. Holds of
/// a process that died count for nothing.
@Suite struct ObjectHoldTests {
    static let font = String(repeating: "Lato latin subset ", count: 400)

    /// The files of the bundle about to be fetched: it shares its font with the one in the cache.
    static let arrivingFiles = ["fonts/lato.woff2": font, "b.css": "b{}", "index.html": "<!doctype html><title>paywall</title>"]

    /// `resident` is in the cache; `arriving` shares its font and is about to be fetched.
    static func stock(_ fixture: CacheFixture, _ cache: LarderCache) throws -> (resident: Digest, arriving: Manifest) {
        let resident = try cache.install(archiveAt: try fixture.file(try bundle("onboarding", ["fonts/lato.woff2": font, "a.css": "a{}"]).archive))
        return (resident.bundle, try bundle("paywall", arrivingFiles).manifest)
    }

    /// What a fetch downloads: a file for each object the hold says is missing, from the
    /// bundle's files (`bundle(_:_:)` adds its index.html).
    static func download(_ missing: Set<Digest>, of files: [String: String], into folder: String) throws -> [Digest: String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var downloaded: [Digest: String] = [:]
        for text in files.values {
            let digest = SHA256Hasher.hash(Array(text.utf8))
            guard missing.contains(digest) else { continue }
            let path = folder + "/" + digest.hex
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            downloaded[digest] = path
        }
        return downloaded
    }

    @Test func anObjectHeldForAFetchOutlivesEveryRemovalUntilItsInstall() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (resident, arriving) = try Self.stock(fixture, cache)
        let shared = arriving.file(at: "fonts/lato.woff2")!.digest
        let hold = try cache.holdObjects(of: arriving)
        #expect(!hold.missing.contains(shared) && hold.missing.count == Set(arriving.files.map(\.digest)).count - 1)

        // Another handle on the cache evicts, clears and sweeps meanwhile.
        let other = try fixture.open()
        #expect(try other.evict(toBytes: 0).evicted.isEmpty, "eviction skips a bundle using a held object")
        try other.clearAll()
        #expect(try fixture.sweepWhenFree(other) != nil)
        #expect(try cache.bundle(resident) != nil, "logout waits for the hold, as for a lease")

        let files = try Self.download(hold.missing, of: Self.arrivingFiles, into: fixture.root + "-downloads")
        defer { try? FileManager.default.removeItem(atPath: fixture.root + "-downloads") }
        let installed = try cache.install(VerifiedManifest(arriving), objectFiles: files)
        hold.release()
        #expect(try cache.bundle(installed.bundle)?.complete == true)
        #expect(try cache.verify().isClean)
        // The removal that waited goes on once the hold ended.
        #expect(try fixture.sweepWhenFree(cache) != nil)
        #expect(try cache.bundle(resident) == nil)
    }

    /// A process that dies holding objects (killed mid-fetch) keeps nothing: its rows count for
    /// nothing, and the next sweep deletes them.
    @Test func aDeadProcesssHoldKeepsNothing() async throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (resident, arriving) = try Self.stock(fixture, cache)
        let (root, manifest) = (fixture.root, Array(arriving.canonicalBytes))
        await #expect(processExitsWith: .signal(SIGKILL)) { [root = root as String, manifest = manifest as [UInt8]] in
            let cache = try LarderCache(at: root)
            let hold = try cache.holdObjects(of: try Manifest(decoding: manifest))
            withExtendedLifetime(hold) { _ = kill(getpid(), SIGKILL) }
        }
        #expect(try cache.index.withLock { (index) throws(CacheError) in try index.heldObjectNames().isEmpty })
        #expect(try cache.evict(toBytes: 0).evicted == [resident])
        #expect(try fixture.sweepWhenFree(cache) != nil)
        let rows = try cache.index.withLock { (index) throws(CacheError) -> Int64 in
            let query = try index.database.prepare("SELECT COUNT(*) FROM object_holds")
            _ = try query.step()
            return query.int(0)
        }
        #expect(rows == 0, "the sweep deletes a dead process's holds")
    }
}
