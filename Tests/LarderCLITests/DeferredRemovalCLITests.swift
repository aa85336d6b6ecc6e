import Foundation
@testable import LarderCache
import LarderFormat
import LarderSystem
import LarderTestSupport
import Testing

/// `larder cache gc` completes a removal that waited for a lease whose holder died: a process
/// leased a bundle, its scope dropped it, and the process was killed holding the lease.
@Suite struct DeferredRemovalCLITests {
    @Test func gcRemovesABundleWhoseLeaseHolderDied() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/cache"
        let cache = try LarderCache(at: path)
        var bundles: [Digest] = []
        for name in ["onboarding", "paywall"] {
            let pack = try CLI.run(["pack", sampleBundles + "/" + name, "-o", scratch.path + "/out", "--json"])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])
            bundles.append(try cache.install(archiveAt: try #require(report["archivePath"] as? String)).bundle)
        }
        _ = try cache.retain(scope: "journey-a", keeping: [bundles[0]], label: "onboarding")

        // A holder that runs, with the lease row its cache would write.
        let holder = try CLI.spawn(["/bin/sleep", "600"])
        let start = try #require(ProcessID.startMark(of: holder))
        try cache.index.withLock { (index) throws(CacheError) in try index.addLease(bundles[0], holder: LeaseHolder(pid: holder, start: start), token: 1) }
        #expect(try cache.retain(scope: "journey-a", keeping: [bundles[1]]).deferred == [bundles[0]])
        kill(holder, SIGKILL)
        #expect(try CLI.wait(holder) == 128 + SIGKILL)
        #expect(try cache.bundle(bundles[0]) != nil)

        let gc = try CLI.run(["cache", "gc", "--cache", path, "--json"])
        #expect(gc.status == 0, "\(gc.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(gc.stdout.utf8)) as? [String: Any])
        #expect(report["bundlesRemoved"] as? [String] == [bundles[0].description])
        #expect(try cache.bundle(bundles[0]) == nil)
        #expect(try cache.verify().isClean)
        let again = try CLI.run(["cache", "gc", "--cache", path])
        #expect(again.stdout.hasPrefix("gc removed 0 files no bundle uses (0 B) in "), "\(again.stdout)")
    }

    /// `larder cache purge` while a running process leases a bundle (a flow on screen): like
    /// every other removal it leaves that bundle whole, names it, and the bundle goes once the
    /// lease ends (here: its holder dies, and the next gc sees it).
    @Test func purgeLeavesALeasedBundleUntilItsLeaseEnds() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/cache"
        let cache = try LarderCache(at: path)
        var bundles: [Digest] = []
        for name in ["onboarding", "paywall"] {
            let pack = try CLI.run(["pack", sampleBundles + "/" + name, "-o", scratch.path + "/out", "--json"])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])
            bundles.append(try cache.install(archiveAt: try #require(report["archivePath"] as? String)).bundle)
        }
        _ = try cache.retain(scope: "journey-a", keeping: [bundles[0]], label: "onboarding")
        try cache.setPinned(bundles[0], true)
        let holder = try CLI.spawn(["/bin/sleep", "600"])
        let start = try #require(ProcessID.startMark(of: holder))
        try cache.index.withLock { (index) throws(CacheError) in try index.addLease(bundles[0], holder: LeaseHolder(pid: holder, start: start), token: 1) }

        let purge = try CLI.run(["cache", "purge", "--cache", path])
        #expect(purge.status == 0, "\(purge.stderr)")
        #expect(purge.stdout.hasPrefix("purged 1 bundles, "), "\(purge.stdout)")
        #expect(purge.stderr.contains("leased: \(bundles[0])\n"), "\(purge.stderr)")
        #expect(purge.stderr.contains("removed when its last lease ends"), "\(purge.stderr)")
        // The flow on screen reads on; it is out of its scope and unpinned, so nothing keeps it.
        #expect(try cache.bundles().map(\.digest) == [bundles[0]])
        #expect(try cache.bundle(bundles[0])?.pinned == false)
        #expect(try cache.bundleUsage()[bundles[0]]?.scopes == [])
        #expect(try cache.verify().isClean)
        let json = try CLI.run(["cache", "purge", "--cache", path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["waitingForLeases"] as? [String] == [bundles[0].description], "\(json.stdout)")

        kill(holder, SIGKILL)
        #expect(try CLI.wait(holder) == 128 + SIGKILL)
        let gc = try CLI.run(["cache", "gc", "--cache", path])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(try cache.bundles().isEmpty)
        #expect(try cache.verify().isClean)
    }
}
