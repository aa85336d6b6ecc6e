import Foundation
import LarderCache
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Several processes fetching one bundle into one cache: one downloads, the others wait for it
/// and use what it installed; no two ever write the same partial file.
@Suite(.serialized) struct SharedCacheFetchTests {
    /// Archive bytes nginx sent, from its access log.
    static func archiveBytes(_ lines: [String], bundle: Digest) -> Int64 {
        lines.filter { $0.contains("\(bundle.hex).tar.gz") }.reduce(0) { total, line in
            let fields = line.split(separator: " ")
            return total + (fields.count > 3 ? Int64(fields[3]) ?? 0 : 0)
        }
    }

    @Test func eightProcessesFetchOneBundleTwentyTimesAndDownloadItOnceEachTime() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.packWithFontsAsWritten(sampleBundles + "/onboarding")
        try origin.publish([onboarding.archivePath])
        // 4 MB/s: the 770 kB archive takes about 0.2 s, long enough for eight processes to meet.
        let base = origin.base.appendingPathComponent("rate/4000k/").absoluteString
        for round in 0..<20 {
            let cache = work.path + "/shared-\(round)"
            try origin.clearAccessLog()
            let running = try (0..<8).map { _ in
                try LarderProcess.start(["cache", "fetch", onboarding.bundleDigest.hex, "--origin", base, "--cache", cache, "--deadline", "20s"])
            }
            var outcomes: [ProcessOutcome] = []
            for process in running { outcomes.append(await process.wait(watchdog: .seconds(40))) }
            for outcome in outcomes { #expect(outcome.status == 0, "round \(round): \(outcome)") }
            let sent = Self.archiveBytes(origin.accessLog, bundle: onboarding.bundleDigest)
            #expect(sent >= onboarding.archiveSize && sent <= onboarding.archiveSize * 11 / 10, "round \(round): \(sent) bytes")
            #expect(outcomes.filter { $0.stdout.contains("(archive)") }.count == 1, "round \(round)")
            let opened = try LarderCache(at: cache)
            #expect(try opened.bundle(onboarding.bundleDigest)?.complete == true)
            #expect(try opened.verify().isClean)
            #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/downloads").isEmpty)
        }
    }

    @Test func fourJourneyPreparationsAtOnceAllSucceed() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.pack(sampleBundles + "/onboarding")
        try origin.publish([onboarding.archivePath], journey: JourneyPublication(id: "onboarding", key: "pk_shared"))
        try origin.reload()
        let cache = work.path + "/cache"
        let running = try (0..<4).map { _ in
            try LarderProcess.start([
                "journey", "prepare", "--origin", origin.base.absoluteString, "--key", "pk_shared", "--journey", "onboarding",
                "--cache", cache,
            ])
        }
        var outcomes: [ProcessOutcome] = []
        for process in running { outcomes.append(await process.wait(watchdog: .seconds(30))) }
        for outcome in outcomes { #expect(outcome.status == 0, "\(outcome)") }
        #expect(Self.archiveBytes(origin.accessLog, bundle: onboarding.bundleDigest) <= onboarding.archiveSize * 11 / 10)
        #expect(try LarderCache(at: cache).verify().isClean)
    }

    @Test func aDeadClaimantsPartialFileIsTakenOver() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.packWithFontsAsWritten(sampleBundles + "/onboarding")  // 760 kB
        try origin.publish([onboarding.archivePath])
        let cache = work.path + "/cache"
        // 100 kB/s: the first process is killed part way.
        let first = try LarderProcess.start([
            "cache", "fetch", onboarding.bundleDigest.hex, "--origin", origin.base.appendingPathComponent("rate/100k/").absoluteString,
            "--cache", cache,
        ])
        let partial = cache + "/downloads/\(onboarding.bundleDigest.hex).tar.gz.part"
        _ = await eventually(within: .seconds(5)) { fileSize(partial) >= 200_000 }
        kill(first.pid, SIGKILL)
        _ = await first.wait(watchdog: .seconds(10))
        let kept = fileSize(partial)
        #expect(kept >= 200_000)
        try origin.clearAccessLog()
        let second = try await LarderProcess.run(["cache", "fetch", onboarding.bundleDigest.hex, "--origin", origin.base.absoluteString, "--cache", cache])
        #expect(second.status == 0, "\(second)")
        // nginx may log the killed request late (when its rate timer next fires): count only
        // the request that resumed where the dead one stopped.
        let resumed = origin.accessLog.filter { $0.contains("\"bytes=") }.filter { !$0.contains("\"bytes=0-\"") }
        #expect(resumed.count == 1, "\(resumed)")
        #expect(resumed.first?.contains("\"bytes=\(kept)-\"") == true, "\(resumed)")
        #expect(Self.archiveBytes(resumed, bundle: onboarding.bundleDigest) == onboarding.archiveSize - kept)
        #expect(try LarderCache(at: cache).verify().isClean)
    }
}
