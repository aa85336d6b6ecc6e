import Foundation
@testable import LarderCache
import LarderFormat
import LarderSQLite
import Testing

/// A lease taken on a thread that must not wait: at once when the index is free, nil (nothing
/// changed) while another connection holds its write lock, and the waiting lease still works.
@Suite struct LeaseWithoutWaitingTests {
    @Test func aHeldWriteLockGivesNilAndChangesNothing() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("leased", ["a.css": "a{}"])
        _ = try cache.install(archiveAt: try fixture.file(archive))
        let free = try #require(try cache.leaseWithoutWaiting(manifest.bundleDigest))
        free.release()

        // Another connection (as another process would) holds the write lock.
        let other = try SQLiteDatabase<SQLiteError>(path: fixture.root + "/index.sqlite")
        try other.execute("BEGIN IMMEDIATE")
        let rowsBefore = try cache.index.withLock { (index) throws(CacheError) in try index.leases().count }
        let started = ContinuousClock.now
        #expect(try cache.leaseWithoutWaiting(manifest.bundleDigest) == nil)
        #expect(started.duration(to: .now) < .seconds(1), "it gave up at once instead of waiting 30 s")
        try other.execute("COMMIT")
        #expect(try cache.index.withLock { (index) throws(CacheError) in try index.leases().count } == rowsBefore)

        let lease = try #require(try cache.leaseWithoutWaiting(manifest.bundleDigest))
        #expect(try lease.data(at: "a.css") == Array("a{}".utf8))
        lease.release()
        // The waiting lease is unchanged.
        let waited = try cache.lease(manifest.bundleDigest)
        waited.release()
    }
}
