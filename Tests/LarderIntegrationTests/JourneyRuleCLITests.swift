import Foundation
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// `larder journey` against nginx for the host rules of issue 13: a journey removed on the
/// origin under each policy, the renderer gate, a forced refresh during a backoff, logout.
@Suite struct JourneyRuleCLITests {
    static let key = "pk_live_rules"

    func scope(_ origin: Origin, _ work: Workspace, identity: String? = nil) -> [String] {
        ["--origin", origin.base.absoluteString, "--key", Self.key, "--journey", "onboarding", "--cache", work.path + "/cache"]
            + (identity.map { ["--identity", $0] } ?? [])
    }

    func larder(_ arguments: [String]) async throws -> ProcessOutcome {
        try await LarderProcess.run(arguments, watchdog: .seconds(120))
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The kinds of a JSON report's timeline entries, in order.
    func kinds(_ outcome: ProcessOutcome) throws -> [String] {
        try #require(try json(outcome.stdout)["timeline"] as? [[String: Any]]).compactMap { $0["kind"] as? String }
    }

    /// Publishes an archive as the journey and reloads nginx (for the new key).
    func publish(_ origin: Origin, _ archive: String) throws {
        try origin.publish([archive], journey: JourneyPublication(id: "onboarding", key: Self.key))
        try origin.reload()
    }

    /// The onboarding sample packed for another renderer protocol.
    func packed(_ work: Workspace, rendererProtocol: Int) throws -> String {
        let source = work.path + "/onboarding-p\(rendererProtocol)"
        try FileManager.default.copyItem(atPath: sampleBundles + "/onboarding", toPath: source)
        let settings = #"{"name": "onboarding", "entry": "index.html", "renderer": {"protocol": \#(rendererProtocol), "capabilities": ["prepare", "visibility"]}}"#
        try Data(settings.utf8).write(to: URL(fileURLWithPath: source + "/larder.json"))
        return try work.pack(source).archivePath
    }

    @Test(arguments: ["discard", "keep"])
    func aJourneyRemovedOnTheOrigin(_ policy: String) async throws {
        let origin = try Origin()
        let work = try Workspace()
        try publish(origin, try work.pack(sampleBundles + "/onboarding").archivePath)
        let rules = ["--on-removed", policy, "--json"]
        #expect(try await larder(["journey", "prepare"] + rules + scope(origin, work)).status == 0)
        try FileManager.default.removeItem(atPath: origin.root + "/journeys/onboarding.json")
        // The first 404 does not confirm: the cache is served.
        let first = try await larder(["journey", "prepare"] + rules + scope(origin, work))
        #expect(first.status == 0, "\(first)")
        #expect(try json(first.stdout)["removed"] as? Bool == false)
        // The second, asked at once with --force, confirms it.
        let second = try await larder(["journey", "prepare", "--force"] + rules + scope(origin, work))
        let status = try json(try await larder(["journey", "status", "--json"] + scope(origin, work)).stdout)
        let denial = try #require(status["denial"] as? [String: Any])
        #expect(denial["status"] as? Int == 404)
        #expect(denial["time"] is String)
        if policy == "discard" {
            #expect(second.status == 77, "\(second)")
            #expect(denial["contentKept"] as? Bool == false)
            #expect(status["revision"] is NSNull)
            #expect(status["cached"] as? Bool == false)
            let text = try await larder(["journey", "status"] + scope(origin, work))
            #expect(text.stdout.contains("removed from the origin (a confirmed 404); content discarded"))
        } else {
            #expect(second.status == 0, "\(second)")
            let report = try json(second.stdout)
            #expect(report["removed"] as? Bool == true)
            #expect(report["revision"] as? Int == 1)
            #expect(denial["contentKept"] as? Bool == true)
            #expect(status["revision"] as? Int == 1)
            // Later runs keep serving it, offline too.
            let offline = try await larder(["journey", "present", "--offline"] + rules + scope(origin, work))
            #expect(offline.status == 0, "\(offline)")
            #expect(try json(offline.stdout)["removed"] as? Bool == true)
        }
    }

    @Test func aProtocol2BundleWithAProtocol1Renderer() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let newer = try packed(work, rendererProtocol: 2)
        // Nothing older: nothing fits.
        try publish(origin, newer)
        let refused = try await larder(["journey", "prepare", "--json"] + scope(origin, work, identity: "usr_a"))
        #expect(refused.status == 69, "\(refused)")
        let error = try #require(try json(refused.stdout)["error"] as? [String: Any])
        #expect(error["code"] as? String == "incompatible")
        #expect((error["message"] as? String)?.contains("renderer protocol 2") == true)

        // An older cached revision that fits is served instead, and the report says why.
        try publish(origin, try work.pack(sampleBundles + "/onboarding").archivePath)
        let older = try await larder(["journey", "prepare", "--json"] + scope(origin, work, identity: "usr_b"))
        #expect(older.status == 0, "\(older)")
        let olderRevision = try json(older.stdout)["revision"] as? Int
        try publish(origin, newer)
        let fallback = try await larder(["journey", "prepare", "--json"] + scope(origin, work, identity: "usr_b"))
        #expect(fallback.status == 0, "\(fallback)")
        let report = try json(fallback.stdout)
        #expect(report["revision"] as? Int == olderRevision)
        #expect((report["fallbackReason"] as? String)?.contains("renderer protocol 2") == true)
        let text = try await larder(["journey", "prepare"] + scope(origin, work, identity: "usr_b"))
        #expect(text.stdout.contains("\nFallback   revision "))
    }

    @Test func forceRefreshDuringABackoff() async throws {
        let origin = try Origin()
        let work = try Workspace()
        try publish(origin, try work.pack(sampleBundles + "/onboarding").archivePath)
        // One offline run starts a backoff, and the next online run waits it out. Forced
        // offline runs ask anyway and fail, doubling it to 4 min, far longer than this test on
        // a busy machine.
        #expect(try await larder(["journey", "prepare", "--offline"] + scope(origin, work)).status == 69)
        for _ in 0..<3 {
            let forced = try await larder(["journey", "prepare", "--offline", "--force", "--json"] + scope(origin, work))
            #expect(forced.status == 69)
            // The forced request failed (and doubled the backoff); the preparation after it may not
            // ask, and the run reports why the forced request failed, not the backoff it started.
            #expect(try kinds(forced).prefix(3) == ["forced", "failed", "backing-off"])
            let error = try #require(try json(forced.stdout)["error"] as? [String: Any])
            #expect(error["code"] as? String == "unavailable" && (error["message"] as? String)?.contains("cannot reach the origin") == true)
        }
        let status = try json(try await larder(["journey", "status", "--json"] + scope(origin, work)).stdout)
        #expect(status["failures"] as? Int == 4)
        let waiting = try await larder(["journey", "prepare", "--json"] + scope(origin, work))
        #expect(waiting.status == 69)
        #expect((try json(waiting.stdout)["error"] as? [String: Any])?["code"] as? String == "backing-off")
        // --force asks anyway.
        let forced = try await larder(["journey", "prepare", "--force", "--json"] + scope(origin, work))
        #expect(forced.status == 0, "\(forced)")
        #expect(try kinds(forced).first == "forced" && kinds(forced).contains("fetched"))
        #expect(try json(forced.stdout)["stale"] as? Bool == false)
        // With a document cached, a forced refresh during a backoff revalidates it (If-None-Match).
        #expect(try await larder(["journey", "prepare", "--offline"] + scope(origin, work)).status == 0)
        let revalidated = try await larder(["journey", "prepare", "--force", "--json"] + scope(origin, work))
        #expect(revalidated.status == 0, "\(revalidated)")
        #expect(try kinds(revalidated).first == "forced" && kinds(revalidated).contains("revalidated"))
        #expect(try json(revalidated.stdout)["stale"] as? Bool == false)
    }

    @Test func logoutThenAnotherIdentity() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let collector = try FaultOrigin { _ in .respond(status: 204, body: []) }
        defer { collector.stop() }
        try publish(origin, try work.pack(sampleBundles + "/onboarding").archivePath)
        #expect(try await larder(["journey", "present"] + scope(origin, work, identity: "usr_1")).status == 0)
        // cache ls names the journey holding the bundle.
        let held = try await larder(["cache", "ls", "--json", "--cache", work.path + "/cache"])
        let listed0 = try #require(try JSONSerialization.jsonObject(with: Data(held.stdout.utf8)) as? [[String: Any]])
        #expect(listed0.map { $0["scopes"] as? [String] } == [["onboarding"]])
        let logout = try await larder(["journey", "logout", "--json"] + scope(origin, work, identity: "usr_1"))
        #expect(logout.status == 0, "\(logout)")
        let after = try json(logout.stdout)
        #expect(after["revision"] is NSNull)
        #expect(after["journeyCaptures"] as? Int == 1)
        let bundles = try await larder(["cache", "ls", "--json", "--cache", work.path + "/cache"])
        #expect(bundles.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

        // Nothing of the first identity is served to the second, offline.
        let second = try await larder(["journey", "prepare", "--offline"] + scope(origin, work, identity: "usr_2"))
        #expect(second.status == 69, "\(second)")

        // The first identity's capture is still queued, and delivered as the first identity's.
        let listed = try await larder(["journey", "captures", "--json", "--cache", work.path + "/cache"])
        #expect(listed.status == 0, "\(listed)")
        let events = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(events.map { $0["visitor"] as? String } == ["usr_1"])
        let delivered = try await larder([
            "journey", "captures", "--json", "--cache", work.path + "/cache", "--deliver", collector.base.absoluteString + "capture",
            "--key", Self.key,
        ])
        #expect(delivered.status == 0, "\(delivered)")
        #expect(try json(delivered.stdout)["delivered"] as? Int == 1)
        let posts = collector.requests.filter { $0.method == "POST" }
        #expect(posts.map { $0.headers["x-larder-visitor"] } == ["usr_1"])
        #expect(posts.first?.headers["x-larder-key"] == Self.key)
        let empty = try await larder(["journey", "captures", "--cache", work.path + "/cache"])
        #expect(empty.stdout == "No captured events are queued.\n")
    }

    @Test func logoutAllClearsEveryJourney() async throws {
        let origin = try Origin()
        let work = try Workspace()
        try origin.publish([try work.pack(sampleBundles + "/paywall").archivePath], journey: JourneyPublication(id: "paywall", key: Self.key))
        try publish(origin, try work.pack(sampleBundles + "/onboarding").archivePath)
        let paywall = scope(origin, work).map { $0 == "onboarding" ? "paywall" : $0 }
        #expect(try await larder(["journey", "prepare"] + scope(origin, work)).status == 0)
        #expect(try await larder(["journey", "prepare"] + paywall).status == 0)

        let logout = try await larder(["journey", "logout", "--all", "--json"] + scope(origin, work))

        #expect(logout.status == 0, "\(logout)")
        #expect(try json(logout.stdout)["revision"] is NSNull)
        let bundles = try await larder(["cache", "ls", "--json", "--cache", work.path + "/cache"])
        #expect(bundles.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
        let other = try json(try await larder(["journey", "status", "--json"] + paywall).stdout)
        #expect(other["revision"] is NSNull, "the other journey's state went too")
        #expect(try await larder(["journey", "prepare", "--offline"] + paywall).status == 69)
    }

    /// `journey status` reports the refresh interval the host uses: what the document asks for,
    /// clamped to 10-30 min, and says so when the two differ.
    @Test(arguments: [(60, 600), (600, 600), (3600, 1800)] as [(Int64, Int64)])
    func statusReportsTheIntervalTheHostUses(_ asked: Int64, _ used: Int64) async throws {
        let origin = try Origin()
        let work = try Workspace()
        try origin.publish(
            [try work.pack(sampleBundles + "/onboarding").archivePath], journey: JourneyPublication(id: "onboarding", key: Self.key, refresh: asked))
        try origin.reload()
        #expect(try await larder(["journey", "prepare"] + scope(origin, work)).status == 0)

        let status = try json(try await larder(["journey", "status", "--json"] + scope(origin, work)).stdout)
        #expect(status["refresh"] as? Int == Int(used))
        let text = try await larder(["journey", "status"] + scope(origin, work)).stdout
        let row = asked == used ? "every \(used) s (asked by the origin)" : "every \(used) s (the origin asked for \(asked) s; clamped to 10-30 min)"
        #expect(text.contains(row), "\(text)")
    }
}
