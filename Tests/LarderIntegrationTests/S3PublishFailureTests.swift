import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Issue 25: publishing to a bucket when it goes wrong: two publishers at once, a publish
/// stopped at each step, a failing server, a wrong setup.
@Suite struct S3PublishFailureTests {
    @Test func twoPublishersAtOnceLoseNoRevision() async throws {
        let s3 = try S3Fixture()
        let archives = try ["onboarding", "paywall"].map { try s3.work.pack(sampleBundles + "/" + $0).archivePath }
        let setup = try await s3.publish(archives)  // the bundles, once
        #expect(setup.status == 0, "\(setup)")
        for round in 0..<20 {
            // Each reads the history, then waits half a second for the answer: both read the
            // same revision, and one of them loses the race for the write.
            try s3.server.fault("delay", method: "GET", contains: "journeys/j.history.json", count: 2)
            let running = try archives.map { try s3.start([$0, "--journey", "j"]) }
            for process in running {
                let outcome = await process.wait(watchdog: .seconds(120))
                #expect(outcome.status == 0, "round \(round): \(outcome)")
            }
        }
        let (document, history) = try s3.journey("j")
        let revisions = history.entries.map(\.revision)
        #expect(revisions == Array(1...Int64(revisions.count)), "\(revisions)")
        #expect(revisions.count >= 20, "\(revisions)")
        #expect(document?.revision == revisions.last && document?.bundle == history.entries.last?.bundle)
        // Both publishers ran into each other's writes, and recovered.
        #expect(s3.server.requests.contains { $0.hasPrefix("PUT /larder/cdn/journeys/") && $0.hasSuffix(" 412") }, "no race happened")
    }

    /// A publish stopped after the objects, after the archive, after the manifest, after the
    /// history (the next write failing for good), or killed at any moment: the document still
    /// points at a complete bundle, and the next publish completes the new one.
    @Test(arguments: ["/objects/", ".tar.gz", "manifest.json", ".history.json", "journeys/j.json"])
    func aStoppedPublishNeverServesAMissingBundle(failing step: String) async throws {
        let s3 = try S3Fixture()
        let first = try await s3.publish([try s3.packSmall("first"), "--journey", "j"])
        #expect(first.status == 0, "\(first)")
        let archive = try s3.packSmall("second-\(step.count)")
        try s3.server.fault("500", contains: step)
        let stopped = try await s3.publish([archive, "--journey", "j"])
        #expect(stopped.status == 69 && stopped.stderr.contains("HTTP 500"), "\(stopped)")
        try s3.expectDocumentPointsAtACompleteBundle("j", "stopped at \(step)")
        #expect(try s3.journey("j").0?.revision == 1)
        try s3.server.clearFaults()
        let completed = try await s3.publish([archive, "--journey", "j"])
        #expect(completed.status == 0, "\(completed)")
        try s3.expectDocumentPointsAtACompleteBundle("j", "completed after \(step)")
        let (document, history) = try s3.journey("j")
        #expect(document?.revision == history.entries.last?.revision && history.entries.count >= 2, "\(history.entries)")
    }

    /// A bucket that already holds a content-addressed object of another size (planted, or a
    /// truncated upload by another tool): the 412 is not taken on trust, the object is sent
    /// again over it (issue 35: what is missing or wrong is sent again), and only then does a
    /// document point at the bundle.
    @Test func anObjectOfAnotherSizeAlreadyThereIsNotTrustedAndIsSentAgain() async throws {
        let s3 = try S3Fixture()
        let archive = try s3.packSmall("planted")
        let manifest = try BundleVerifier.readManifest(from: try ArchiveReader(path: archive)).manifest
        let object = try #require(manifest.files.first).digest
        let planted = s3.work.path + "/planted.bin"
        let bytes = Array("not the object".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: planted))
        _ = try Origin.shell([
            "curl", "-sf", "-T", planted, "-H", "x-amz-content-sha256: \(SHA256Hasher.hash(bytes).hex)", "--aws-sigv4", "aws:amz:us-east-1:s3", "-u", "\(s3.server.accessKeyID):\(s3.server.secretAccessKey)",
            "\(s3.server.endpoint)/larder/\(s3.prefix)/objects/\(object.hex)",
        ])

        try s3.server.clearLog()
        let outcome = try await s3.publish([archive, "--journey", "j"])

        #expect(outcome.status == 0, "\(outcome)")
        let puts = s3.puts.filter { $0.contains("objects/\(object.hex) ") }
        #expect(puts == ["PUT /larder/cdn/objects/\(object.hex) 412", "PUT /larder/cdn/objects/\(object.hex) 200"], "\(s3.puts)")
        try s3.expectDocumentPointsAtACompleteBundle("j", "after sending the object again")
        #expect(try s3.journey("j").0 != nil)
    }

    @Test func aKilledPublishNeverServesAMissingBundle() async throws {
        let s3 = try S3Fixture()
        let first = try await s3.publish([try s3.packSmall("first"), "--journey", "j"])
        #expect(first.status == 0, "\(first)")
        for (index, delay) in [30_000, 80_000, 150_000, 250_000, 400_000].enumerated() {
            let archive = try s3.packSmall("killed-\(index)")
            let running = try s3.start([archive, "--journey", "j"])
            usleep(useconds_t(delay))
            kill(running.pid, SIGKILL)
            _ = await running.wait(watchdog: .seconds(60))
            try s3.expectDocumentPointsAtACompleteBundle("j", "killed after \(delay / 1000) ms")
            let completed = try await s3.publish([archive, "--journey", "j"])
            #expect(completed.status == 0, "\(completed)")
            try s3.expectDocumentPointsAtACompleteBundle("j", "completed after a kill at \(delay / 1000) ms")
        }
    }

    /// A few 500s are retried away; a server that keeps failing gets a bounded number of tries,
    /// then a clear error, and no document.
    @Test(arguments: [("500", 69, "HTTP 500"), ("slowdown", 69, "SlowDown"), ("drop", 74, "no answer after 5 attempts")])
    func aFailingServerGetsBoundedRetriesThenAClearError(action: String, status: Int32, says: String) async throws {
        let s3 = try S3Fixture()
        let archive = try s3.packSmall("retried")
        try s3.server.fault(action, contains: "/objects/", count: 2)
        let retried = try await s3.publish([archive, "--journey", "retried"])
        #expect(retried.status == 0, "\(retried)")
        #expect(s3.server.requests.filter { $0.hasSuffix("fault-\(action)") }.count == 2)

        try s3.server.clearLog()
        try s3.server.fault(action, contains: "/objects/")
        let failed = try await s3.publish([try s3.packSmall("failed"), "--journey", "failed"])
        #expect(failed.status == status && failed.stderr.contains(says), "\(failed)")
        let attempts = s3.server.requests.filter { $0.hasSuffix("fault-\(action)") }
        #expect(!attempts.isEmpty && attempts.count <= 2 * 5, "\(attempts)")  // two at a time, five tries each
        #expect(s3.get("journeys/failed.json") == nil && s3.get(JourneyHistory.path(journey: "failed")) == nil)
        #expect(failed.elapsed < 60, "\(failed)")
    }

    @Test func aWrongSetupGetsATypedErrorNamingIt() async throws {
        let s3 = try S3Fixture()
        let archive = try s3.packSmall("setup")
        let nginx = try Origin()
        var wrongSecret = s3.server.environment
        wrongSecret["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        var unknownKey = s3.server.environment
        unknownKey["AWS_ACCESS_KEY_ID"] = "AKIANOBODYKNOWS00000"
        var none = s3.server.environment
        none["AWS_ACCESS_KEY_ID"] = ""
        none["AWS_SHARED_CREDENTIALS_FILE"] = s3.work.path + "/no-such-file"
        var wrongToken = s3.server.environment.merging(s3.server.sessionCredentials) { $1 }
        wrongToken["AWS_SESSION_TOKEN"] = "not-the-token"
        let cases: [(String, [String: String]?, String?, [String], String)] = [
            ("wrong secret", wrongSecret, nil, [], "the signature does not match"),
            ("wrong session token", wrongToken, nil, [], "does not know these credentials (InvalidToken"),
            ("unknown key", unknownKey, nil, [], "does not know these credentials (InvalidAccessKeyId"),
            ("no credentials", none, nil, [], "no credentials: set AWS_ACCESS_KEY_ID"),
            ("not S3", nil, nginx.base.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")), [], "not as an S3 service does"),
        ]
        for (name, environment, endpoint, extra, says) in cases {
            let outcome = try await s3.publish([archive] + extra, environment: environment, endpoint: endpoint)
            #expect(outcome.status == 69 && outcome.stderr.contains(says), "\(name): \(outcome)")
        }
        let missing = try await LarderProcess.run(
            ["publish", archive, "--origin", "s3://no-such-bucket/x", "--endpoint", s3.server.endpoint], environment: s3.server.environment)
        #expect(missing.status == 69 && missing.stderr.contains("the bucket 'no-such-bucket' does not exist"), "\(missing)")
        #expect(!s3.server.requests.contains { $0.hasPrefix("PUT /larder/") }, "nothing is sent with a wrong setup")

        let keys = try await LarderProcess.run(["keys", "grant", "pk_1", "--journey", "j", "--origin", s3.origin])
        #expect(keys.status == 64 && keys.stderr.contains("a bucket cannot check the X-Larder-Key header"), "\(keys)")
        let withKey = try await s3.publish([archive, "--journey", "j", "--key", "pk_1"])
        #expect(withKey.status == 64 && withKey.stderr.contains("Gate journeys/ at the CDN"), "\(withKey)")
    }
}
