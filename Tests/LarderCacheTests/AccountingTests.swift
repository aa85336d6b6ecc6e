import Foundation
@testable import LarderCache
import LarderFormat
import LarderSQLite
import Testing

/// The stored totals (objects and bytes) are running counters, not a table: they must agree
/// with the rows after every kind of change, and come back right after a crash left them off.
@Suite struct AccountingTests {
    /// What a recount from the rows gives.
    static func counted(_ cache: LarderCache) throws -> (objects: Int, bytes: Int64) {
        try cache.index.withLock { (index) throws(CacheError) in
            let objects = try index.objects()
            return (objects.count, objects.map(\.size).reduce(0, +))
        }
    }

    static func expectExact(_ cache: LarderCache, _ note: Comment) throws {
        let statistics = try cache.statistics()
        let counted = try Self.counted(cache)
        #expect(statistics.objects == counted.objects, note)
        #expect(statistics.bytesOnDisk == counted.bytes, note)
    }

    @Test func totalsFollowInstallsSharingEvictionQuarantineAndRefetch() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let shared = String(repeating: "s", count: 3000)
        let (firstArchive, firstManifest) = try bundle("one", ["f.ttf": shared, "a.css": "aaaa"])
        let first = try cache.install(archiveAt: try fixture.file(firstArchive)).bundle
        fixture.tick()
        let second = try cache.install(archiveAt: try fixture.file(try bundle("two", ["f.ttf": shared, "b.css": "bb"]).archive)).bundle
        try Self.expectExact(cache, "after two installs sharing a font")
        #expect(try cache.statistics().objects == 5)

        // Quarantine takes the object off once, however often it is found bad.
        let style = firstManifest.file(at: "a.css")!.digest
        try CorruptionTests.flipByte(of: style, in: fixture)
        #expect(throws: CacheError.self) { _ = try cache.lease(first).data(at: "a.css") }
        let repair = try cache.verify(repair: true)
        #expect(repair.corrupt.isEmpty)
        #expect(repair.incomplete == [first])
        try Self.expectExact(cache, "after quarantine")
        #expect(try cache.statistics().objects == 4)

        // Refetching puts it back.
        _ = try cache.install(archiveAt: try fixture.file(firstArchive))
        try Self.expectExact(cache, "after refetch")
        #expect(try cache.statistics().objects == 5)

        // Evicting the older bundle frees its own objects, not the shared font.
        fixture.tick()
        _ = try cache.lease(second).release()
        let report = try cache.evict(toBytes: 1)
        #expect(report.evicted == [first, second])
        try Self.expectExact(cache, "after eviction")
        #expect(try cache.statistics().objects == 0)
        #expect(try cache.statistics().bytesOnDisk == 0)
    }

    @Test func aQuarantinedObjectOfAnEvictedBundleIsNotFreedTwice() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("x", ["a.css": "aaaa", "b.css": "bbbb"])
        let digest = try cache.install(archiveAt: try fixture.file(archive)).bundle
        try CorruptionTests.flipByte(of: manifest.file(at: "a.css")!.digest, in: fixture)
        #expect(try !cache.verify(repair: true).isClean)
        #expect(try cache.evict(toBytes: 0).evicted == [digest])
        #expect(try cache.statistics().objects == 0)
        #expect(try cache.statistics().bytesOnDisk == 0)
    }

    @Test func purgeLeavesNothingBehindAndTheCacheStaysUsable() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("x", ["a.css": "aaaa", "b.css": "bbbb"])
        let digest = try cache.install(archiveAt: try fixture.file(archive)).bundle
        try cache.setPinned(digest, true)
        _ = try cache.importEmbeddedDefault(archiveAt: try fixture.file(try bundle("default", ["b.css": "bbbb", "e.css": "e"]).archive))
        _ = try cache.retain(scope: "app", keeping: [digest])
        try CorruptionTests.flipByte(of: manifest.file(at: "a.css")!.digest, in: fixture)
        #expect(try !cache.verify(repair: true).isClean)
        // What an install that died after this process opened the cache left behind, and files
        // that are not what a staging folder holds: a FIFO, and a link to a folder outside.
        let leftover = fixture.root + "/staging/dead-install"
        try FileManager.default.createDirectory(atPath: leftover + "/a", withIntermediateDirectories: true)
        try Data("aaaa".utf8).write(to: URL(fileURLWithPath: leftover + "/a/object"))
        #expect(mkfifo(fixture.root + "/staging/fifo", 0o600) == 0)
        let outside = fixture.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/kept"))
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/staging/link", withDestinationPath: outside)

        try cache.purge()

        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/staging").isEmpty)
        #expect(FileManager.default.contents(atPath: outside + "/kept") == Data("keep".utf8))  // not followed
        #expect(try cache.bundles().isEmpty)
        #expect(try cache.statistics().objects == 0)
        #expect(try cache.statistics().bytesOnDisk == 0)
        #expect(try cache.layout.objectFileNames().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/quarantine").isEmpty)
        #expect(try fixture.indexDump(cache).filter { !$0.hasPrefix("counters:") }.isEmpty)
        #expect(try cache.install(archiveAt: try fixture.file(archive)).bundle == digest)
        #expect(try cache.verify().isClean)
        #expect(try cache.statistics().objects == manifest.files.count)
    }

    /// A killed install can leave objects in the store that no commit accounted for; another
    /// install may reuse them before anyone recovers. Its staging folder makes the next open
    /// (or eviction, or sweep) recount.
    @Test func objectsLeftByAKilledInstallAreRecountedOnRecovery() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("x", ["a.css": "aaaa"])
        // What the killed install left: its staging folder, and an object already in place.
        try Self.leaveAKilledInstall(placing: manifest.file(at: "a.css")!.digest, bytes: "aaaa", in: fixture)
        let result = try cache.install(archiveAt: try fixture.file(archive))
        #expect(result.objectsWritten == 1)  // index.html; a.css was reused
        #expect(try cache.statistics().objects == 1)  // off until recovery

        let reopened = try fixture.open()
        try Self.expectExact(reopened, "after recovery")
        #expect(try reopened.statistics().objects == 2)
        #expect(fixture.fileList.filter { $0.hasPrefix("staging/") }.isEmpty)
        #expect(try reopened.lease(result.bundle).data(at: "a.css") == Array("aaaa".utf8))
    }

    /// Recovery also removes what the killed install had moved into place, so no later install
    /// reuses it uncounted.
    @Test func recoveryLeavesNoObjectToReuseUncounted() throws {
        let fixture = try CacheFixture()
        let (archive, manifest) = try bundle("x", ["a.css": "aaaa"])
        let object = manifest.file(at: "a.css")!.digest
        _ = try fixture.open()
        try Self.leaveAKilledInstall(placing: object, bytes: "aaaa", in: fixture)
        let cache = try fixture.open()
        #expect(!FileManager.default.fileExists(atPath: CacheLayout(root: fixture.root).objectPath(object)))
        #expect(try cache.install(archiveAt: try fixture.file(archive)).objectsWritten == 2)
        try Self.expectExact(cache, "after an install following recovery")
        #expect(try cache.statistics().objects == 2)
    }

    static func leaveAKilledInstall(placing object: Digest, bytes: String, in fixture: CacheFixture) throws {
        try FileManager.default.createDirectory(atPath: fixture.root + "/staging/install-dead", withIntermediateDirectories: true)
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: CacheLayout(root: fixture.root).objectPath(object)))
    }

    @Test func anEvictionKilledBeforeUnlinkingIsRecoveredByTheNextSweep() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let path = try fixture.file(try bundle("x", ["a.css": "aaaa"]).archive)
        let digest = try cache.install(archiveAt: path).bundle
        // What a killed eviction leaves: its marker, the rows gone, the files still there.
        try Data().write(to: URL(fileURLWithPath: fixture.root + "/staging/evicting"))
        try cache.index.withLock { (index) throws(CacheError) in
            try index.database.transaction { () throws(CacheError) in _ = try index.deleteBundles([digest]) }
        }
        #expect(try cache.statistics().objects == 0)
        // An install reuses the forgotten files before anyone recovers.
        let again = try cache.install(archiveAt: path)
        #expect(again.objectsWritten == 0)
        #expect(try cache.statistics().objects == 0)  // off until recovery
        let sweep = try #require(try fixture.sweepWhenFree(cache))
        #expect(sweep.strayFiles.isEmpty)
        try Self.expectExact(cache, "after the sweep")
        #expect(try cache.statistics().objects == 2)
        #expect(try cache.lease(digest).data(at: "a.css") == Array("aaaa".utf8))
    }

    @Test func anIndexOfTheFirstSchemaIsRefusedWithAdviceToPurge() throws {
        let fixture = try CacheFixture()
        try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
        let old = try SQLiteDatabase<SQLiteError>(path: fixture.root + "/index.sqlite")
        try old.execute(
            """
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE objects(digest TEXT PRIMARY KEY, size INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO meta(key, value) VALUES('schema', '1');
            """)
        #expect {
            _ = try fixture.open()
        } throws: { error in
            guard let error = error as? CacheError else { return false }
            return error.code == .storage && error.message.contains("purge")
        }
    }
}
