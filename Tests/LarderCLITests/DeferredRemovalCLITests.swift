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
}
