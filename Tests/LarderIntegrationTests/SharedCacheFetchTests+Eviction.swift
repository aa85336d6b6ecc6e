import Foundation
import LarderCache
import LarderFormat
import LarderPack
import LarderPublish
import LarderSystem
import LarderTestSupport
import Testing

/// Fetches racing another process that installs and evicts a bundle sharing an object with
/// theirs (onboarding and paywall share Lato's latin subset): the fetch that counts the shared
/// object as present holds it until its install commits, so it never loses it to the eviction
/// (exit 65, "object not provided"); a journey preparation never fails for it (and never starts
/// a backoff), and one whose bundle is evicted between its choice and its lease treats that as
/// a cache miss. Real processes on one cache, bounded loops.
extension SharedCacheFetchTests {
    @Test func fetchesNeverLoseASharedObjectToAnotherProcesssEviction() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.pack(sampleBundles + "/onboarding")
        let paywall = try work.pack(sampleBundles + "/paywall")
        let objects = { (report: PackReport) throws -> Set<Digest> in
            Set(try Manifest(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: origin.root + "/bundles/\(report.bundleDigest.hex)/manifest.json"))))
                .files.map(\.digest))
        }
        try origin.publish([onboarding.archivePath, paywall.archivePath], journey: JourneyPublication(id: "paywall", key: "pk_race"))
        try origin.reload()
        #expect(!(try objects(onboarding)).intersection(try objects(paywall)).isEmpty, "the samples no longer share an object")
        let cache = work.path + "/cache"
        // Slow enough that another process installs and evicts onboarding while the objects
        // paywall lacks arrive.
        let slow = origin.base.appendingPathComponent("rate/200k/").absoluteString
        // This process drops paywall after each fetch (leaving onboarding to the other process),
        // so that every round fetches it again.
        let own = try LarderCache(at: cache)

        let stop = Locked(false)
        let evictor = Task { () -> [ProcessOutcome] in
            var failures: [ProcessOutcome] = []
            for _ in 0..<300 where !stop.withLock({ $0 }) {
                for arguments in [["cache", "install", onboarding.archivePath, "--cache", cache], ["cache", "evict", "--to", "0", "--cache", cache]] {
                    guard let outcome = try? await LarderProcess.run(arguments, watchdog: .seconds(60)) else { continue }
                    if outcome.status != 0 { failures.append(outcome) }
                }
            }
            return failures
        }
        var fromObjects = 0
        var sources: [String] = []
        for round in 0..<20 {
            let fetch = try await LarderProcess.run(
                ["cache", "fetch", paywall.bundleDigest.hex, "--origin", slow, "--cache", cache, "--deadline", "40s"], watchdog: .seconds(60))
            #expect(fetch.status == 0, "fetch \(round): \(fetch)")
            if fetch.stdout.contains("(objects)") { fromObjects += 1 }
            sources.append(String(fetch.stdout.split(separator: " ").dropFirst(2).first ?? ""))
            _ = try own.retain(scope: "round", keeping: [paywall.bundleDigest])
            _ = try own.retain(scope: "round", keeping: [])
        }
        for round in 0..<8 {
            let prepare = try await LarderProcess.run(
                ["journey", "prepare", "--origin", origin.base.absoluteString, "--key", "pk_race", "--journey", "paywall", "--cache", cache,
                 "--force-refresh", "--json"], watchdog: .seconds(60))
            #expect(prepare.status == 0, "prepare \(round): \(prepare)")
            let report = try JSONSerialization.jsonObject(with: Data(prepare.stdout.utf8)) as? [String: Any]
            let kinds = Set(((report?["timeline"] as? [[String: Any]]) ?? []).compactMap { $0["kind"] as? String })
            #expect(kinds.isDisjoint(with: ["failed", "backing-off", "served-stale"]), "prepare \(round): \(kinds): \(prepare.stdout.prefix(2000))")
        }
        stop.withLock { $0 = true }
        let evictorFailures = await evictor.value
        #expect(evictorFailures.isEmpty, "\(evictorFailures)")
        // The race was run: some fetches found the shared font in place and fetched the rest.
        #expect(fromObjects >= 3, "only \(fromObjects) of 20 fetches found onboarding's font in place: \(sources)")
        #expect(try LarderCache(at: cache).verify().isClean)
    }
}
