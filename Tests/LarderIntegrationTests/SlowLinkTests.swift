import Foundation
import LarderCache
import LarderFormat
import LarderPack
import LarderTestSupport
import Testing

/// Slow links finish: what each attempt received is kept, and the next attempt (another
/// process) asks only for the rest.
@Suite(.serialized) struct SlowLinkTests {
    @Test func aBundleCompletesAcrossShortRunsOnA100kBLink() async throws {
        let origin = try Origin()
        let work = try Workspace()
        // The fonts as written: a 760 kB archive, so that each 5 s run at 100 kB/s gets part of it.
        let onboarding = try work.packWithFontsAsWritten(sampleBundles + "/onboarding")
        try origin.publish([onboarding.archivePath])
        let base = origin.base.appendingPathComponent("rate/100k/").absoluteString
        let cache = work.path + "/cache"
        var runs = 0
        var finished = false
        // About 8 s of transfer: two or three runs of 5 s. Each ends within its deadline and 2 s
        // to start and stop the process (scaled, see `testTimeScale`: an instrumented `larder` on
        // a machine busy with the rest of the suite ended 4.3 s after its deadline).
        let limit = 5 + 2 * testTimeScale
        while runs < 6 && !finished {
            runs += 1
            let outcome = try await LarderProcess.run(
                ["cache", "fetch", onboarding.bundleDigest.hex, "--origin", base, "--cache", cache, "--deadline", "5s"], watchdog: .seconds(20))
            #expect(outcome.elapsed < limit, "\(outcome)")
            if outcome.status == 0 { finished = true } else { #expect(outcome.status == 75, "\(outcome)") }
        }
        #expect(finished)
        #expect(runs >= 2)
        let sent = SharedCacheFetchTests.archiveBytes(origin.accessLog, bundle: onboarding.bundleDigest)
        #expect(sent <= onboarding.archiveSize * 11 / 10, "\(sent) bytes sent for a \(onboarding.archiveSize)-byte archive")
        let resumed = origin.accessLog.filter { $0.contains(".tar.gz") && !$0.contains("\"bytes=0-\"") }
        #expect(!resumed.isEmpty)
        #expect(try LarderCache(at: cache).verify().isClean)
    }

    @Test func fetchingObjectsMovesFewerBytesThanTheArchive() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.pack(sampleBundles + "/onboarding")
        let paywall = try work.pack(sampleBundles + "/paywall")
        try origin.publish([onboarding.archivePath, paywall.archivePath])
        let cache = try work.cache()
        _ = try cache.install(archiveAt: paywall.archivePath)  // shares a font with onboarding
        try origin.clearAccessLog()
        let outcome = try await LarderProcess.run(
            ["cache", "fetch", onboarding.bundleDigest.hex, "--origin", origin.base.absoluteString, "--cache", cache.root])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("(objects)"))
        let sent = origin.accessLog.reduce(Int64(0)) { total, line in
            let fields = line.split(separator: " ")
            return total + (fields.count > 3 ? Int64(fields[3]) ?? 0 : 0)
        }
        #expect(sent < onboarding.archiveSize, "objects moved \(sent) bytes; the archive is \(onboarding.archiveSize)")
        #expect(try cache.verify().isClean)
    }
}
