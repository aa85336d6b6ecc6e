import Foundation
import LarderHost
import LarderPack
import LarderPublish
import LarderTransport
import LarderTestSupport
import Testing

/// Event triggers end to end against nginx [seed 001: "an experience appears when the user fires
/// a specific event via trigger()", "Use the TriggerHandle to observe what happened", "reentry
/// policies control how often a experience appears"]: `larder publish --trigger` writes the
/// origin's triggers.json, nginx serves it to known keys with ETags, and `larder journey
/// trigger` decides: shown, suppressed (why) or no match, offline too.
@Suite struct TriggerCLITests {
    static let key = "pk_live_triggers"

    func larder(_ arguments: [String]) async throws -> ProcessOutcome {
        try await LarderProcess.run(arguments, watchdog: .seconds(120))
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func scope(_ origin: Origin, _ work: Workspace, identity: String = "usr_1") -> [String] {
        ["--origin", origin.base.absoluteString, "--key", Self.key, "--cache", work.path + "/cache", "--identity", identity]
    }

    @Test func publishedTriggersPresentTheirJourneyOncePerPerson() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let archive = try work.pack(sampleBundles + "/paywall").archivePath
        let published = try await larder([
            "publish", archive, "--origin", origin.root, "--journey", "paywall", "--key", Self.key, "--trigger", "checkout_started",
            "--trigger", "paywall_tapped", "--reentry", "once", "--json",
        ])
        #expect(published.status == 0, "\(published)")
        let report = try json(published.stdout)
        let triggers = try #require(report["triggers"] as? [String: Any])
        #expect(triggers["revision"] as? Int == 1)
        #expect((triggers["triggers"] as? [[String: Any]])?.compactMap { $0["event"] as? String } == ["checkout_started", "paywall_tapped"])
        try origin.reload()

        // nginx: the document to a known key only, revalidated with its ETag.
        let document = try #require(URL(string: "triggers.json", relativeTo: origin.base))
        #expect(try await Self.status(document, key: nil) == 401)
        #expect(try await Self.status(document, key: "pk_unknown") == 401)
        #expect(try await Self.status(document, key: Self.key) == 200)

        let first = try await larder(["journey", "trigger", "checkout_started", "--json"] + scope(origin, work))
        #expect(first.status == 0, "\(first)")
        let shown = try json(first.stdout)
        #expect(shown["decision"] as? String == "shown" && shown["journey"] as? String == "paywall" && shown["event"] as? String == "checkout_started")
        #expect(shown["session"] as? String != nil && shown["revision"] as? Int == 1)

        // Once per person, remembered by the next run (a new process).
        let again = try await larder(["journey", "trigger", "paywall_tapped", "--json"] + scope(origin, work))
        #expect(try json(again.stdout)["decision"] as? String == "suppressed")
        #expect(try json(again.stdout)["reason"] as? String == "reentry")
        let other = try await larder(["journey", "trigger", "paywall_tapped", "--json"] + scope(origin, work, identity: "usr_2"))
        #expect(try json(other.stdout)["decision"] as? String == "shown")
        let none = try await larder(["journey", "trigger", "app_opened"] + scope(origin, work))
        #expect(none.status == 0 && none.stdout == "no-match: no published trigger for app_opened\n")

        // Offline: the kept triggers decide; logout forgets the person's reentry.
        try origin.stop()
        #expect(try json(try await larder(["journey", "trigger", "checkout_started", "--offline", "--json"] + scope(origin, work)).stdout)["reason"] as? String == "reentry")
        let logout = try await larder(["journey", "logout", "--journey", "paywall"] + scope(origin, work))
        #expect(logout.status == 0, "\(logout)")
        let afterLogout = try await larder(["journey", "trigger", "checkout_started", "--offline", "--json"] + scope(origin, work))
        // Logged out: nothing of the journey is cached for the person any more; the trigger
        // matched and was let through by reentry, and there is nothing to show offline.
        #expect(try json(afterLogout.stdout)["decision"] as? String == "suppressed")
        #expect(try json(afterLogout.stdout)["reason"] as? String == "no-content")
    }

    @Test func aJourneysHistoryIsServedWithItsGrant() async throws {
        let origin = try Origin()
        let work = try Workspace()
        try origin.publish([try work.pack(sampleBundles + "/onboarding").archivePath], journey: JourneyPublication(id: "onboarding", key: Self.key))
        try origin.publish([try work.pack(sampleBundles + "/paywall").archivePath], journey: JourneyPublication(id: "paywall", key: "pk_other"))
        try origin.reload()
        let history = try #require(URL(string: "journeys/onboarding.history.json", relativeTo: origin.base))
        #expect(try await Self.status(history, key: Self.key) == 200)
        #expect(try await Self.status(history, key: "pk_other") == 403)
        #expect(try await Self.status(history, key: nil) == 401)
        #expect(try await Self.status(try #require(URL(string: "journeys/onboarding.json", relativeTo: origin.base)), key: Self.key) == 200)

        // A host over libcurl presents the earlier revision it names, authorised with the key.
        let first = try #require(try OriginPublisher.currentDocument(journey: "onboarding", origin: origin.root))
        try origin.publish([try work.pack(sampleBundles + "/legacy-prompt").archivePath], journey: JourneyPublication(id: "onboarding", key: Self.key))
        let host = try JourneyHost(
            configuration: JourneyConfiguration(
                publishableKey: Self.key, journeyID: "onboarding", origin: origin.base, fetchDeadline: .seconds(30).scaledForTests,
                presentationDeadline: .seconds(60).scaledForTests),
            cache: try work.cache(), renderer: HeadlessRenderer(), storage: work.path + "/host", coordinator: PresentationCoordinator(),
            connectivity: nil)
        let session = try await host.present(version: .revision(first.revision))
        #expect(session.revision == first.revision && session.bundle == first.bundle && !session.preview)
        await host.dispose()
    }

    /// The status nginx answers a GET of `url` with `key`.
    static func status(_ url: URL, key: String?) async throws -> Int {
        try await CurlTransport.shared.send(HTTPRequest(url: url, headers: key.map { ["X-Larder-Key": $0] } ?? [:])).status
    }
}
