import Foundation
import LarderFormat
import Testing
@testable import LarderCache

@Suite struct FontResolutionTests {
    @Test func resolvesAStoredFontWithItsMediaType() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        _ = try cache.install(archiveAt: try fixture.file(try bundle("x", ["fonts/a.woff2": "WOFF2", "fonts/b.ttf": "TTF"]).archive))
        let woff = SHA256Hasher.hash(Array("WOFF2".utf8))
        let font = try cache.resolveFont(FontURL(digest: woff))
        #expect(font.mediaType == "font/woff2")
        #expect(font.bytes == Array("WOFF2".utf8))
        // Still resolvable after reopening.
        let reopened = try fixture.open()
        #expect(try reopened.resolveFont(FontURL(digest: SHA256Hasher.hash(Array("TTF".utf8)))).mediaType == "font/ttf")
    }

    @Test func unknownAndMalformedURLsAreTypedErrors() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        _ = try cache.install(archiveAt: try fixture.file(try bundle("x", ["a.css": "a"]).archive))
        let notAFont = SHA256Hasher.hash(Array("a".utf8))  // stored, but not as a font
        #expect { _ = try cache.resolveFont(FontURL(digest: notAFont)) } throws: { ($0 as? CacheError)?.code == .unknownFont }
        // A malformed URL never reaches the cache: the one parser refuses it.
        #expect { _ = try FontURL(parsing: "larder-font://sha256/../index.html") } throws: { ($0 as? FormatError)?.code == .malformedFontURL }
        #expect { _ = try FontURL(parsing: "file:///etc/passwd") } throws: { ($0 as? FormatError)?.code == .malformedFontURL }
    }
}

@Suite struct InvalidationTests {
    @Test func keepsExactlyTheScopesBundlesAndSaysWhatToFetch() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let old = try cache.install(archiveAt: try fixture.file(try bundle("old", ["a.css": "old"]).archive)).bundle
        let kept = try cache.install(archiveAt: try fixture.file(try bundle("kept", ["a.css": "kept"]).archive)).bundle
        let wanted = try bundle("new", ["a.css": "new"]).manifest.bundleDigest

        let first = try cache.retain(scope: "user-1", keeping: [old, kept])
        #expect(first.missing.isEmpty && first.dropped.isEmpty)
        let second = try cache.retain(scope: "user-1", keeping: [kept, wanted])
        #expect(second.dropped == [old])
        #expect(second.removed == [old])
        #expect(second.missing == [wanted])
        #expect(try cache.bundle(old) == nil)
        #expect(try cache.bundle(kept) != nil)
        #expect(try cache.verify().isClean)
    }

    @Test func anotherScopeOrAPinKeepsADroppedBundle() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let shared = try cache.install(archiveAt: try fixture.file(try bundle("shared", ["a.css": "s"]).archive)).bundle
        let pinned = try cache.install(archiveAt: try fixture.file(try bundle("pinned", ["a.css": "p"]).archive)).bundle
        _ = try cache.retain(scope: "a", keeping: [shared, pinned])
        _ = try cache.retain(scope: "b", keeping: [shared])
        try cache.setPinned(pinned, true)
        let result = try cache.retain(scope: "a", keeping: [])
        #expect(Set(result.dropped) == [shared, pinned])
        #expect(result.removed.isEmpty)
    }

    @Test func logoutClearsAllButTheEmbeddedDefault() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let font = String(repeating: "F", count: 5000)
        let embedded = try cache.importEmbeddedDefault(archiveAt: try fixture.file(try bundle("default", ["f.ttf": font]).archive))
        let later = try cache.install(archiveAt: try fixture.file(try bundle("later", ["f.ttf": font, "x.css": "x"]).archive))
        #expect(later.objectsWritten == 2)  // shares the font with the embedded default
        try cache.clearAll()
        #expect(try cache.bundles().map(\.digest) == [embedded.bundle])
        #expect(try cache.bundles().first?.embedded == true)
        #expect(try cache.verify().isClean)
        #expect(try cache.statistics().objects == 2)
    }
}

@Suite struct EvictionTests {
    /// Three bundles of ~100 kB installed a second apart; `shared` is a font all three use.
    static func fill(_ fixture: CacheFixture, _ cache: LarderCache) throws -> [Digest] {
        let shared = String(decoding: noise(20_000, seed: 9).map { $0 % 26 + 97 }, as: UTF8.self)
        var digests: [Digest] = []
        for index in 0..<3 {
            let body = String(decoding: noise(100_000, seed: UInt64(index)).map { $0 % 26 + 97 }, as: UTF8.self)
            digests.append(try cache.install(archiveAt: try fixture.file(try bundle("b\(index)", ["big.js": body, "f.ttf": shared]).archive)).bundle)
            fixture.tick()
        }
        return digests
    }

    @Test func evictsLeastRecentlyUsedWholeBundlesAndKeepsSharedFonts() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let digests = try Self.fill(fixture, cache)
        _ = try cache.lease(digests[0]).release()  // b0 becomes the most recently used
        fixture.tick()
        let report = try cache.evict(toBytes: 250_000)
        #expect(report.evicted == [digests[1]])
        #expect(report.bytesAfter <= 250_000)
        let font = SHA256Hasher.hash(Array(String(decoding: noise(20_000, seed: 9).map { $0 % 26 + 97 }, as: UTF8.self).utf8))
        #expect(try cache.resolveFont(FontURL(digest: font)).bytes.count == 20_000)
        #expect(try cache.verify().isClean)
        #expect(try cache.statistics().evictions == 1)
    }

    @Test func neverEvictsPinnedLeasedOrEmbeddedBundles() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let digests = try Self.fill(fixture, cache)
        try cache.setPinned(digests[0], true)
        let lease = try cache.lease(digests[1])
        let embedded = try cache.importEmbeddedDefault(archiveAt: try fixture.file(try bundle("default", ["e.css": "e"]).archive))
        let report = try cache.evict(toBytes: 0)
        #expect(report.evicted == [digests[2]])
        #expect(Set(try cache.bundles().map(\.digest)) == [digests[0], digests[1], embedded.bundle])
        lease.release()
        #expect(try cache.evict(toBytes: 0).evicted == [digests[1]])
    }

    @Test func installsEvictDownToTheLowWaterMark() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open(diskBudget: 260_000)
        let digests = try Self.fill(fixture, cache)
        // The third install passed 260 kB; eviction went down to 80% of it: the oldest went.
        #expect(try cache.bundle(digests[0]) == nil)
        #expect(try cache.statistics().bytesOnDisk <= 208_000)
        #expect(try cache.bundle(digests[2]) != nil)
    }
}

@Suite struct SweepTests {
    @Test func removesUnreferencedObjectsAndStrayFiles() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        _ = try cache.install(archiveAt: try fixture.file(try bundle("x", ["a.css": "a"]).archive))
        let stray = fixture.root + "/objects/ab/" + String(repeating: "c", count: 62)
        try FileManager.default.createDirectory(atPath: fixture.root + "/objects/ab", withIntermediateDirectories: true)
        try Data("left by a crash".utf8).write(to: URL(fileURLWithPath: stray))
        let dry = try #require(try fixture.sweepWhenFree(cache, dryRun: true))
        #expect(dry.strayFiles == [stray])
        #expect(dry.strayBytes == 15)
        #expect(FileManager.default.fileExists(atPath: stray))
        let report = try #require(try fixture.sweepWhenFree(cache))
        #expect(report.strayFiles == [stray])
        #expect(report.strayBytes == 15)
        #expect(!FileManager.default.fileExists(atPath: stray))
        #expect(try cache.verify().isClean)
        #expect(try cache.statistics().sweeps == 1)
    }
}

@Suite struct MemoryPressureTests {
    @Test func pressureKeepsWhatAPresentationHoldsAndTheBudgetHolds() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open(memoryBudget: 64 * 1024)
        let files = (0..<8).reduce(into: [String: String]()) { $0["r\($1).css"] = String(repeating: Character(UnicodeScalar(97 + $1)!), count: 12_000) }
        let digest = try cache.install(archiveAt: try fixture.file(try bundle("held", files).archive)).bundle
        let presented = try cache.lease(digest)
        _ = try presented.data(at: "r0.css")  // held by the presentation
        let other = try cache.lease(digest)
        for index in 1..<8 { _ = try other.data(at: "r\(index).css") }
        other.release()
        #expect(cache.memory.statistics.bytes <= 64 * 1024)
        cache.memory.checkInvariants()

        cache.handleMemoryPressure(.critical)
        let afterCritical = cache.memory.statistics
        #expect(afterCritical.entries == 1)
        #expect(afterCritical.heldEntries == 1)
        // The held resource is still a memory hit.
        let hits = afterCritical.hits
        _ = try presented.data(at: "r0.css")
        #expect(cache.memory.statistics.hits == hits + 1)
        presented.release()
        cache.handleMemoryPressure(.critical)
        #expect(cache.memory.statistics.entries == 0)
    }
}
