import Foundation
import LarderCache
import LarderFormat
import LarderPack
import LarderPublish
import LarderSystem
import LarderTestSupport
import Testing

/// Two `larder cache fetch` processes bringing patched updates into one cache that holds the old
/// revision, at once: of the same new revision (one makes it from the patch, the other waits
/// for its download claim and uses what it installed), and of two new revisions that both make
/// the same new script from the same base (each from its own claim, both installing it).
@Suite(.serialized) struct PatchSharedCacheTests {
    /// Revisions 1 and 2 of ``PatchFetchTests``' flow, and revision 3: revision 2's script with
    /// another page. Published in that order to one journey, so both 2 and 3 have a patch from
    /// revision 1's script to the new one.
    struct Flow: Sendable {
        let work: Workspace
        let root: String
        let first: PackReport
        let second: PackReport
        let third: PackReport
        /// The path of the patch both updates use.
        let patchPath: String
        /// The new script, which both updates need.
        let script: Digest

        init() throws {
            work = try Workspace()
            (first, second) = try PatchFetchTests.Revisions.pack(in: work)
            try """
            <!doctype html><html><head><link rel="stylesheet" href="style.css"><script src="MathJax.js"></script></head>
            <body><p>Price: $5.99</p></body></html>
            """.write(toFile: work.path + "/flow/index.html", atomically: true, encoding: .utf8)
            third = try work.pack(work.path + "/flow")
            root = work.path + "/origin"
            let journey = JourneyPublication(id: "patchflow", key: nil)
            for report in [first, second, third] { _ = try OriginPublisher.publish(archives: [report.archivePath], to: root, journey: journey) }
            guard let script = try BundleVerifier.verify(archiveAt: second.archivePath).manifest?.file(at: "MathJax.js")?.digest else {
                throw IntegrationError("revision 2 has no script")
            }
            self.script = script
            var indexes: [PatchIndex] = []
            for update in [second.bundleDigest, third.bundleDigest] {
                indexes.append(try PatchIndex(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + PatchIndex.path(bundle: update))))))
            }
            let patches = Set(indexes.flatMap { $0.patches(to: script).map(\.patch) })
            guard patches.count == 1, let patch = patches.first else { throw IntegrationError("the updates' script patches: \(patches)") }
            patchPath = "/" + PatchIndex.path(of: patch)
        }
    }

    /// A fault origin serving `flow`, the patch dripped over about a second so two processes
    /// started together overlap.
    static func serve(_ flow: Flow) throws -> FaultOrigin {
        let patch = Array(try Data(contentsOf: URL(fileURLWithPath: flow.root + flow.patchPath)))
        let (path, root) = (flow.patchPath, flow.root)
        return try FaultOrigin { request in
            request.path == path
                ? .drip(status: 200, headers: [], body: patch, bytesPerSecond: max(64, patch.count))
                : .file(root: root)
        }
    }

    static func fetch(_ bundle: Digest, origin: FaultOrigin, cache: String) throws -> LarderProcess.Running {
        try LarderProcess.start(["cache", "fetch", bundle.hex, "--origin", origin.base.absoluteString, "--cache", cache, "--deadline", "\(Int(30 * testTimeScale))s", "--json"])
    }

    static func report(_ outcome: ProcessOutcome) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], "\(outcome.stdout)")
    }

    /// The cache holds exactly `bundles`, complete, with nothing left in `downloads/`, reads
    /// revision 1's old script, and verifies.
    static func expectClean(_ cache: String, holding bundles: [PackReport], flow: Flow) throws {
        let opened = try LarderCache(at: cache)
        #expect(Set(try opened.bundles().filter(\.complete).map(\.digest)) == Set(bundles.map(\.bundleDigest)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/downloads").isEmpty)
        let old = try opened.lease(flow.first.bundleDigest)
        #expect(!String(decoding: try old.data(at: "MathJax.js"), as: UTF8.self).contains("// revision 2"))
        old.release()
        for bundle in bundles.dropFirst() {
            let lease = try opened.lease(bundle.bundleDigest)
            #expect(String(decoding: try lease.data(at: "MathJax.js"), as: UTF8.self).contains("// revision 2: one line more"))
            lease.release()
        }
        #expect(try opened.verify().isClean)
    }

    /// A cache at `name` holding revision 1 (fetched whole by the CLI).
    static func cacheWithFirst(_ flow: Flow, origin: FaultOrigin, name: String) async throws -> String {
        let cache = flow.work.path + "/" + name
        let first = try await fetch(flow.first.bundleDigest, origin: origin, cache: cache).wait(watchdog: .seconds(30))
        #expect(first.status == 0, "\(first)")
        return cache
    }

    /// Rounds 0 and 1 start both processes together (they race for the claim); rounds 2 and 3
    /// start the second once the first is receiving the patch, so it finds the claim held.
    @Test func twoProcessesFetchingTheSameUpdateApplyThePatchOnce() async throws {
        let flow = try Flow()
        let origin = try Self.serve(flow)
        for round in 0..<4 {
            let cache = try await Self.cacheWithFirst(flow, origin: origin, name: "same-\(round)")
            let before = origin.requests.count
            var running = [try Self.fetch(flow.second.bundleDigest, origin: origin, cache: cache)]
            if round >= 2 {
                let patching = await eventually(within: .seconds(10)) { origin.requests.dropFirst(before).contains { $0.path == flow.patchPath } }
                #expect(patching, "round \(round): the first process never asked for the patch")
            }
            running.append(try Self.fetch(flow.second.bundleDigest, origin: origin, cache: cache))
            var outcomes: [ProcessOutcome] = []
            for process in running { outcomes.append(await process.wait(watchdog: .seconds(40))) }
            for outcome in outcomes { #expect(outcome.status == 0, "round \(round): \(outcome)") }
            let reports = try outcomes.map(Self.report)
            let sources = reports.map { $0["source"] as? String ?? "?" }.sorted()
            // One made the script from the patch; the other waited for its claim and found the
            // bundle installed.
            #expect(sources == ["cache", "objects"], "round \(round): \(reports)")
            #expect(reports.map { $0["patchesApplied"] as? Int ?? -1 }.reduce(0, +) == 1, "round \(round): \(reports)")
            #expect(reports.map { $0["patchFallbacks"] as? Int ?? -1 }.reduce(0, +) == 0, "round \(round): \(reports)")
            let asked = origin.requests.dropFirst(before).map(\.path)
            #expect(asked.filter { $0 == flow.patchPath }.count == 1, "round \(round): \(asked)")
            #expect(asked.filter { $0.hasPrefix("/objects/") || $0.hasSuffix(".tar.gz") }.isEmpty, "round \(round): \(asked)")
            try Self.expectClean(cache, holding: [flow.first, flow.second], flow: flow)
        }
        try await offThePool { origin.stop() }
    }

    @Test func twoProcessesFetchingTwoUpdatesFromOneBaseBothApplyTheirPatch() async throws {
        let flow = try Flow()
        let origin = try Self.serve(flow)
        for round in 0..<3 {
            let cache = try await Self.cacheWithFirst(flow, origin: origin, name: "two-\(round)")
            let before = origin.requests.count
            let running = try [flow.second, flow.third].map { try Self.fetch($0.bundleDigest, origin: origin, cache: cache) }
            var outcomes: [ProcessOutcome] = []
            for process in running { outcomes.append(await process.wait(watchdog: .seconds(40))) }
            for outcome in outcomes { #expect(outcome.status == 0, "round \(round): \(outcome)") }
            let reports = try outcomes.map(Self.report)
            // Two bundles, two claims: each makes the new script from the same base and the same
            // patch, and the second install finds the object the first put in the store.
            for report in reports {
                #expect(report["source"] as? String == "objects", "round \(round): \(report)")
                #expect(report["patchesApplied"] as? Int == 1 && report["patchFallbacks"] as? Int == 0, "round \(round): \(report)")
            }
            let asked = origin.requests.dropFirst(before).map(\.path)
            #expect(asked.filter { $0 == flow.patchPath }.count == 2, "round \(round): \(asked)")
            #expect(asked.filter { $0 == "/objects/\(flow.script.hex)" }.isEmpty, "round \(round): \(asked)")
            try Self.expectClean(cache, holding: [flow.first, flow.second, flow.third], flow: flow)
        }
        try await offThePool { origin.stop() }
    }
}
