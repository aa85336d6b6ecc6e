import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// `larder journey prepare|present` against nginx during a staged rollout (issue 21 item 11):
/// the report names the published revision, its date and the identity's side of the rollout.
@Suite struct JourneyRolloutCLITests {
    static let key = "pk_live_rollout"

    @Test func prepareAndPresentNameTheAssignment() async throws {
        let origin = try Origin()
        let work = try Workspace()
        try origin.publish([try work.pack(sampleBundles + "/onboarding").archivePath], journey: JourneyPublication(id: "onboarding", key: Self.key))
        let report = try origin.publish(
            [try work.pack(sampleBundles + "/paywall").archivePath], journey: JourneyPublication(id: "onboarding", key: Self.key, rollout: 30))
        try origin.reload()
        let document = try #require(report.journey)
        for included in [true, false] {
            let user = (0...).lazy.map { "usr_\($0)" }.first { (JourneyDocument.Rollout.bucket(journey: "onboarding", id: $0) < 30) == included }!
            let bucket = JourneyDocument.Rollout.bucket(journey: "onboarding", id: user)
            let scope = ["--origin", origin.base.absoluteString, "--key", Self.key, "--journey", "onboarding", "--cache", work.path + "/cache-\(user)", "--identity", user]
            let side = included ? "new" : "previous"
            let prepared = try await LarderProcess.run(["journey", "prepare", "--json"] + scope, watchdog: .seconds(120))
            #expect(prepared.status == 0, "\(prepared)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(prepared.stdout.utf8)) as? [String: Any])
            #expect(json["revision"] as? Int == 2 && json["source"] as? String == "network")
            #expect(json["published"] as? String == document.published)
            let assignment = try #require(json["assignment"] as? [String: Any])
            #expect(assignment["bucket"] as? Int == bucket && assignment["percent"] as? Int == 30 && assignment["side"] as? String == side)

            let presented = try await LarderProcess.run(["journey", "present"] + scope, watchdog: .seconds(120))
            #expect(presented.status == 0, "\(presented)")
            #expect(presented.stdout.contains("Published  \(document.published)"), "\(presented.stdout)")
            #expect(presented.stdout.contains("Rollout    bucket \(bucket) of 30%: \(side) bundle"), "\(presented.stdout)")
            // The presentation's capture is queued with the same assignment.
            let listed = try await LarderProcess.run(["journey", "captures", "--json", "--cache", work.path + "/cache-\(user)"], watchdog: .seconds(120))
            let events = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
            #expect(!events.isEmpty)
            for event in events {
                let queued = try #require(event["assignment"] as? [String: Any])
                #expect(queued["bucket"] as? Int == bucket && queued["percent"] as? Int == 30 && queued["side"] as? String == side)
            }
        }
    }
}
