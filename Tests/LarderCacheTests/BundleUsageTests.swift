import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// `bundleUsage()`: the named scopes holding each bundle, and its unique and shared bytes.
@Suite struct BundleUsageTests {
    @Test func scopesAreNamedAndBytesSplitBySharing() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let a = try cache.install(archiveAt: try fixture.file(try bundle("a", ["font.ttf": "SHARED", "a.css": "only-a"]).archive)).bundle
        let b = try cache.install(archiveAt: try fixture.file(try bundle("b", ["font.ttf": "SHARED", "b.css": "b"]).archive)).bundle
        _ = try cache.retain(scope: "journey-1", keeping: [a], label: "onboarding")
        _ = try cache.retain(scope: "journey-2", keeping: [a, b], label: "paywall")
        _ = try cache.retain(scope: "journey-3", keeping: [b])

        let usage = try cache.bundleUsage()
        let (ua, ub) = (try #require(usage[a]), try #require(usage[b]))
        #expect(ua.scopes == ["onboarding", "paywall"] && ub.scopes == ["journey-3", "paywall"])
        // The font is shared; each bundle's own files (its CSS and the helper's entry page) are not.
        #expect(ua.sharedBytes == 6 && ub.sharedBytes == 6)
        #expect(ua.uniqueBytes - ub.uniqueBytes == "only-a".count - "b".count)
        #expect(ua.uniqueBytes + ua.sharedBytes == (try cache.bundle(a)?.size))

        // A scope that keeps nothing loses its name; a later retain without a label keeps it.
        _ = try cache.retain(scope: "journey-1", keeping: [])
        _ = try cache.retain(scope: "journey-2", keeping: [b])
        #expect(try cache.bundleUsage()[b]?.scopes == ["journey-3", "paywall"])
        _ = try cache.retain(scope: "journey-1", keeping: [b])
        #expect(try cache.bundleUsage()[b]?.scopes == ["journey-1", "journey-3", "paywall"])

        #expect(try cache.bundleUsage()[a] == nil, "a was dropped by every scope and removed")
    }

    @Test func quarantinedObjectsCountForNothing() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("a", ["font.ttf": "SHARED", "a.css": "only-a"])
        let a = try cache.install(archiveAt: try fixture.file(archive)).bundle
        _ = try cache.install(archiveAt: try fixture.file(try bundle("b", ["font.ttf": "SHARED", "b.css": "b"]).archive)).bundle
        let before = try #require(try cache.bundleUsage()[a])
        let font = try #require(manifest.files.first { $0.path == "font.ttf" }).digest
        try flipFirstByte(at: CacheLayout(root: fixture.root).objectPath(font))
        #expect(try cache.verify(repair: true).corrupt == [font])
        let after = try #require(try cache.bundleUsage()[a])
        #expect(after.sharedBytes == before.sharedBytes - 6)
        #expect(after.uniqueBytes == before.uniqueBytes)
    }

    @Test func evictionFreesTheUniqueBytes() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let a = try cache.install(archiveAt: try fixture.file(try bundle("a", ["font.ttf": "SHARED", "a.css": "only-a"]).archive)).bundle
        let b = try cache.install(archiveAt: try fixture.file(try bundle("b", ["font.ttf": "SHARED", "b.css": "b"]).archive)).bundle
        try cache.setPinned(b, true)
        let unique = try #require(try cache.bundleUsage()[a]).uniqueBytes
        let kept = try #require(try cache.bundleUsage()[b])
        let report = try cache.evict(toBytes: 0)
        #expect(report.evicted == [a])
        #expect(report.bytesFreed == unique)
        // The font b shared with a is now b's alone.
        #expect(try cache.bundleUsage()[b] == BundleUsage(scopes: [], uniqueBytes: kept.uniqueBytes + kept.sharedBytes, sharedBytes: 0))
    }
}
