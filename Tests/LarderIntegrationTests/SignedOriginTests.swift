import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import LarderTransport
import Testing

/// Issue 15 end to end: `larder keys`, `larder publish --sign/--rollback` and `larder journey
/// prepare --trust` against nginx on 127.0.0.1. Every `larder` run is a new launch of the app.
@Suite(.serialized) struct SignedOriginTests {
    static let key = "pk_live_signed"

    /// A packed onboarding and paywall, an origin, and two signing key pairs.
    struct World {
        let origin: Origin
        let work: Workspace
        let onboarding: PackReport
        let paywall: PackReport

        init() async throws {
            origin = try Origin()
            work = try Workspace()
            onboarding = try work.pack(sampleBundles + "/onboarding")
            paywall = try work.pack(sampleBundles + "/paywall")
            for name in ["k1", "k2"] {
                let generated = try await LarderProcess.run(["keys", "generate", name, "--out", work.path])
                #expect(generated.status == 0, "\(generated)")
            }
        }

        func keyFile(_ name: String, _ suffix: String) -> String { work.path + "/\(name).\(suffix)" }

        /// `larder publish` of one archive to the journey, signed with `signer` when given.
        func publish(_ archive: PackReport?, _ extra: [String] = [], signer: String? = "k1") async throws {
            var arguments = ["publish"] + (archive.map { [$0.archivePath] } ?? []) + ["--origin", origin.root, "--journey", "onboarding"]
            if archive != nil { arguments += ["--key", SignedOriginTests.key] }
            if let signer { arguments += ["--sign", keyFile(signer, "pem")] }
            let outcome = try await LarderProcess.run(arguments + extra)
            #expect(outcome.status == 0, "\(outcome)")
            try origin.reload()
        }

        /// `larder journey prepare --json` into cache `cache`, trusting `trusted`.
        func prepare(_ cache: String, trusting trusted: [String], _ extra: [String] = []) async throws -> (status: Int32, report: [String: JSONValue], stdout: String) {
            let outcome = try await LarderProcess.run(
                ["journey", "prepare", "--origin", origin.base.absoluteString, "--key", SignedOriginTests.key, "--journey", "onboarding",
                 "--cache", work.path + "/" + cache, "--deadline", "30s", "--json"]
                    + trusted.flatMap { ["--trust", keyFile($0, "pub")] } + extra)
            guard case .object(let report) = try JSONValue.parse(Array(outcome.stdout.utf8)) else {
                throw IntegrationError("not a JSON report: \(outcome)")
            }
            return (outcome.status, report, outcome.stdout)
        }

        var documentPath: String { origin.root + "/journeys/onboarding.json" }
        func document() throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: documentPath))) }
        func serve(_ bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: documentPath)) }
    }

    @Test func tamperedReplayedExpiredAndRotatedDocumentsOverNginx() async throws {
        let world = try await World()
        try await world.publish(world.onboarding)
        let first = try world.document()
        try await world.publish(world.paywall)
        let second = try world.document()
        let paywall = JSONValue.string(world.paywall.bundleDigest.description)
        for cache in ["a", "b"] {
            let accepted = try await world.prepare(cache, trusting: ["k1"])
            #expect(accepted.status == 0 && accepted.report["bundle"] == paywall && accepted.report["revision"] == .int(2), "\(accepted)")
        }

        // The bundle changed on the origin after signing: refused, the device keeps what it had.
        let tampered = String(decoding: second, as: UTF8.self).replacingOccurrences(
            of: world.paywall.bundleDigest.hex, with: world.onboarding.bundleDigest.hex)
        try world.serve(Array(tampered.utf8))
        let afterTamper = try await world.prepare("a", trusting: ["k1"])
        #expect(afterTamper.status == 0 && afterTamper.report["bundle"] == paywall && afterTamper.report["stale"] == .bool(true))
        #expect(afterTamper.stdout.contains("rejected: bad signature"), "\(afterTamper.stdout)")

        // A replay of revision 1 after revision 2 was accepted (in an earlier launch).
        try world.serve(first)
        let afterReplay = try await world.prepare("b", trusting: ["k1"])
        #expect(afterReplay.status == 0 && afterReplay.report["revision"] == .int(2) && afterReplay.report["bundle"] == paywall)
        #expect(afterReplay.stdout.contains("rejected: rollback from revision 2 to 1"), "\(afterReplay.stdout)")

        // Rotation: re-signed by k2 (the same revision). Trusting both, accepted; trusting only
        // k1, refused, and the document k2 signed that the device stored is not used either.
        try world.serve(second)
        try await world.publish(world.paywall, signer: "k2")
        let both = try await world.prepare("c", trusting: ["k1", "k2"])
        #expect(both.status == 0 && both.report["source"] == .string("network"), "\(both)")
        let onlyOld = try await world.prepare("c", trusting: ["k1"])
        #expect(onlyOld.status == 65, "\(onlyOld)")
        #expect(onlyOld.stdout.contains("rejected: unknown key"), "\(onlyOld.stdout)")

        // Expired: signed to last one second.
        try await world.publish(world.paywall, ["--expires-in", "1s"])
        try await Task.sleep(for: .milliseconds(2100))
        let expired = try await world.prepare("d", trusting: ["k1"])
        #expect(expired.status == 65, "\(expired)")
        #expect(expired.stdout.contains("rejected: expired at "), "\(expired.stdout)")
        // Publishing again with the key renews it.
        try await world.publish(world.paywall)
        let renewed = try await world.prepare("e", trusting: ["k1"])
        #expect(renewed.status == 0 && renewed.report["revision"] == .int(2), "\(renewed)")
    }

    @Test func aRollbackRestoresTheEarlierBundleOnDevicesAtAHigherRevision() async throws {
        let world = try await World()
        try await world.publish(world.onboarding)
        try await world.publish(world.paywall)
        let before = try await world.prepare("device", trusting: ["k1"])
        #expect(before.report["revision"] == .int(2) && before.report["bundle"] == .string(world.paywall.bundleDigest.description))

        try await world.publish(nil, ["--rollback"])
        let after = try await world.prepare("device", trusting: ["k1"])
        #expect(after.status == 0, "\(after)")
        #expect(after.report["revision"] == .int(3) && after.report["bundle"] == .string(world.onboarding.bundleDigest.description))

        let history = try await LarderProcess.run(["journey", "history", "--origin", world.origin.root, "--journey", "onboarding", "--json"])
        guard case .object(let listed) = try JSONValue.parse(Array(history.stdout.utf8)), case .array(let revisions)? = listed["revisions"] else {
            Issue.record("no history: \(history)")
            return
        }
        #expect(revisions.count == 3 && listed["current"] == .int(3))
        let signer = try SigningKey(pem: [UInt8](Data(contentsOf: URL(fileURLWithPath: world.keyFile("k1", "pem"))))).publicKey.id
        guard case .object(let last)? = revisions.last else { return }
        #expect(last["revision"] == .int(3) && last["rollbackTo"] == .int(1))
        #expect(last["bundle"] == .string(world.onboarding.bundleDigest.description))
        #expect(last["signer"] == .string(signer))
        // Nothing earlier with another bundle than revision 3's: --to names one explicitly.
        let refused = try await LarderProcess.run(["publish", "--origin", world.origin.root, "--journey", "onboarding", "--rollback", "--to", "3"])
        #expect(refused.status == 65 && refused.stderr.contains("already serves"), "\(refused)")
    }

    @Test func aRevokedKeyGets401AndNginxNeverReadsAHalfWrittenMap() async throws {
        let world = try await World()
        try await world.publish(world.onboarding, signer: nil)
        let url = world.origin.base.appendingPathComponent("journeys/onboarding.json")
        func status(_ key: String) async throws -> Int {
            try await platformTransport().send(HTTPRequest(url: url, headers: ["X-Larder-Key": key], timeout: .seconds(10))).status
        }
        #expect(try await status(Self.key) == 200)

        // Keys granted and revoked while nginx reloads: every reload reads a whole map.
        let maps = AccessMaps(origin: world.origin.root)
        let origin = world.origin
        async let reloaded: Void = offThePool { for _ in 0..<15 { try origin.reload() } }
        for round in 0..<300 {
            try maps.grant("pk_churn_\(round % 7)", journey: "onboarding")
            if round % 3 == 0 { try maps.revoke("pk_churn_\((round + 3) % 7)") }
        }
        try await reloaded
        let log = try String(contentsOfFile: world.origin.run + "/error.log", encoding: .utf8)
        let errors = log.split(separator: "\n").filter { $0.contains("[emerg]") || $0.contains("map") }
        #expect(errors.isEmpty, "\(errors.prefix(3))")

        let revoked = try await LarderProcess.run(["keys", "revoke", Self.key, "--origin", world.origin.root])
        #expect(revoked.status == 0, "\(revoked)")
        try world.origin.reload()
        #expect(try await status(Self.key) == 401)
        let listed = try await LarderProcess.run(["keys", "list", "--origin", world.origin.root, "--json"])
        #expect(!listed.stdout.contains(Self.key) && listed.stdout.contains("pk_churn_"), "\(listed)")
        let again = try await LarderProcess.run(["keys", "revoke", Self.key, "--origin", world.origin.root])
        #expect(again.status == 66, "\(again)")
        let granted = try await LarderProcess.run(["keys", "grant", Self.key, "--journey", "onboarding", "--origin", world.origin.root])
        #expect(granted.status == 0, "\(granted)")
        try world.origin.reload()
        #expect(try await status(Self.key) == 200)
    }
}

/// Issue 20 over nginx: expiry holds whatever the origin answers, and a forced refresh keeps a
/// refusal's exit status.
extension SignedOriginTests {
    @Test func afterExpiryNginxs304RenewsNothing() async throws {
        let world = try await World()
        // Long enough for the first preparation on a loaded machine; then wait until it passed.
        let validity = Int((10 * testTimeScale).rounded(.up))
        try await world.publish(world.onboarding, ["--expires-in", "\(validity)s"])
        let accepted = try await world.prepare("device", trusting: ["k1"])
        #expect(accepted.status == 0 && accepted.report["source"] == .string("network"), "\(accepted)")
        let document = try JourneyDocument(decoding: try world.document())
        let expiry = try #require(document.expires.flatMap { try? Date($0, strategy: .iso8601) })
        try await Task.sleep(for: .milliseconds(Int64(max(0, expiry.timeIntervalSinceNow) * 1000) + 100))
        // nginx would answer the stored ETag with a 304; the expired document is no validator.
        let expired = try await world.prepare("device", trusting: ["k1"])
        #expect(expired.status == 65, "\(expired)")
        #expect(!expired.stdout.contains("\"revalidated\""), "\(expired.stdout)")
        #expect(expired.stdout.contains("rejected: expired at "), "\(expired.stdout)")
        // Re-signed, it is taken again (asked at once despite the backoff the refusal started).
        try await world.publish(world.onboarding)
        let renewed = try await world.prepare("device", trusting: ["k1"], ["--force"])
        #expect(renewed.status == 0 && renewed.report["stale"] == .bool(false), "\(renewed)")
        #expect(renewed.stdout.contains(#""kind":"fetched""#), "\(renewed.stdout)")
    }

    @Test func aForcedRefreshWithNothingCachedKeepsTheRefusalsExitStatus() async throws {
        let world = try await World()
        try await world.publish(world.onboarding, signer: "k2")
        let arguments = [
            "journey", "prepare", "--origin", world.origin.base.absoluteString, "--key", SignedOriginTests.key, "--journey", "onboarding",
            "--cache", world.work.path + "/device", "--trust", world.keyFile("k1", "pub"), "--json",
        ]
        let refused = try await LarderProcess.run(arguments)
        #expect(refused.status == 65, "\(refused)")
        // Within the backoff that refusal started, --force asks again, is refused again, and says so.
        let forced = try await LarderProcess.run(arguments + ["--force"])
        #expect(forced.status == 65, "\(forced)")
        guard case .object(let report) = try JSONValue.parse(Array(forced.stdout.utf8)), case .object(let error)? = report["error"] else {
            Issue.record("no error in \(forced)")
            return
        }
        #expect(error["code"] == .string("rejected"), "\(forced.stdout)")
        #expect(forced.stdout.contains("rejected: unknown key"), "\(forced.stdout)")
    }
}
