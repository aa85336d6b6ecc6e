import Foundation
import LarderFormat
import Testing
@testable import LarderCache

/// Manifests as the index stores them: checked against the bundle digest they must hash to,
/// and decoded once per process.
@Suite struct StoredManifestTests {
    /// Another bundle's manifest, valid and canonical, written over this bundle's row (a damaged
    /// or tampered index) is refused instead of being served as this bundle's.
    @Test func anotherBundlesManifestInTheRowIsRefused() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("one", ["a.css": "one"])
        let (otherArchive, other) = try bundle("two", ["a.css": "two"])
        let digest = try cache.install(archiveAt: try fixture.file(archive)).bundle
        _ = try cache.install(archiveAt: try fixture.file(otherArchive))
        try cache.index.withLock { (index) throws(CacheError) in
            try index.database.prepare("UPDATE bundles SET manifest = ? WHERE digest = ?")
                .bind(.blob(other.canonicalBytes), .text(digest.description)).run()
        }
        #expect(manifest.bundleDigest == digest)

        let reopened = try fixture.open()
        #expect { _ = try reopened.lease(digest) } throws: { ($0 as? CacheError)?.code == .storage }
        #expect { _ = try reopened.manifest(digest) } throws: { ($0 as? CacheError)?.code == .storage }
    }

    /// The renderer gate reads a manifest, then the lease reads it again: the second is the
    /// kept one. Whether the bundle is still in the cache is asked each time.
    @Test func aKeptManifestDoesNotOutliveItsBundle() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("one", ["a.css": "one"])
        let digest = try cache.install(archiveAt: try fixture.file(archive)).bundle
        #expect(try cache.manifest(digest) == manifest)
        try cache.lease(digest).release()
        #expect(cache.manifests.count == 1)

        #expect(try cache.evict(toBytes: 0).evicted == [digest])
        #expect { _ = try cache.manifest(digest) } throws: { ($0 as? CacheError)?.code == .bundleNotFound }
        #expect { _ = try cache.lease(digest) } throws: { ($0 as? CacheError)?.code == .bundleNotFound }

        _ = try cache.install(archiveAt: try fixture.file(archive))
        #expect(try cache.lease(digest).manifest == manifest)
    }

    @Test func memoryPressureForgetsKeptManifests() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let digest = try cache.install(archiveAt: try fixture.file(try bundle("one", ["a.css": "one"]).archive)).bundle
        _ = try cache.manifest(digest)
        #expect(cache.manifests.count == 1)
        cache.handleMemoryPressure(.warning)
        #expect(cache.manifests.count == 0)
        #expect(try cache.manifest(digest).bundleDigest == digest)
    }

    /// Manifests are kept up to a number of file entries in all: one that does not fit empties
    /// the memo first, and one larger than the whole budget is not kept.
    @Test func keptManifestsStayWithinTheirFileBudget() throws {
        let memo = ManifestMemo()
        func manifest(_ name: String, files: Int) throws -> Manifest {
            try Manifest(
                name: name, entry: "index.html", renderer: .init(),
                files: (0..<files).map { index in
                    Manifest.File(
                        path: index == 0 ? "index.html" : "f\(index).css", digest: SHA256Hasher.hash(Array("\(name)\(index)".utf8)),
                        size: 1, mediaType: index == 0 ? "text/html" : "text/css", role: index == 0 ? .document : .style, essential: true)
                })
        }
        let half = try manifest("half", files: ManifestMemo.fileBudget / 2)
        let small = try manifest("small", files: 2)
        let large = try manifest("large", files: ManifestMemo.fileBudget / 2 + 1)
        memo.keep(half, for: half.bundleDigest)
        memo.keep(small, for: small.bundleDigest)
        #expect(memo.count == 2)
        memo.keep(large, for: large.bundleDigest)
        #expect(memo.count == 1)
        #expect(memo.kept(large.bundleDigest) == large)
        let tooLarge = try manifest("too-large", files: ManifestMemo.fileBudget + 1)
        #expect(memo.keep(tooLarge, for: tooLarge.bundleDigest) == tooLarge)
        #expect(memo.kept(tooLarge.bundleDigest) == nil)
    }
}
