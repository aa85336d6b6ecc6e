import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Issue 25: `larder publish --origin s3://…` against moto's S3 server (signatures checked),
/// and devices reading the bucket as their origin.
@Suite struct S3PublishTests {
    @Test func devicesFetchAndPrepareWhatWasPublishedToABucket() async throws {
        let s3 = try S3Fixture()
        let packed = try ["paywall", "legacy-prompt", "onboarding"].map { try s3.work.pack(sampleBundles + "/" + $0) }
        let outcome = try await s3.publish(packed.map(\.archivePath) + ["--journey", "onboarding"])
        #expect(outcome.status == 0, "\(outcome)")
        #expect(outcome.stdout.contains("journey onboarding revision 1 -> \(packed[2].bundleDigest)"), "\(outcome.stdout)")
        // What moto stored is what was sent: every object hashes to its name.
        try s3.expectDocumentPointsAtACompleteBundle("onboarding", "after publishing")
        for bundle in packed {
            let manifestBytes = try #require(s3.get("bundles/\(bundle.bundleDigest.hex)/manifest.json"))
            let manifest = try Manifest(decoding: [UInt8](manifestBytes))
            for file in manifest.files {
                let bytes = try #require(s3.get("objects/\(file.digest.hex)"), "\(file.path)")
                #expect(SHA256Hasher.hash([UInt8](bytes)) == file.digest && Int64(bytes.count) == file.size, "\(file.path)")
            }
            let archive = try #require(s3.get("bundles/\(bundle.bundleDigest.hex).tar.gz"))
            #expect(SHA256Hasher.hash([UInt8](archive)) == bundle.archiveDigest)
        }
        // The headers the nginx origin sends.
        let lastManifest = try #require(s3.get("bundles/\(packed[2].bundleDigest.hex)/manifest.json"))
        let object = try #require(try Manifest(decoding: [UInt8](lastManifest)).files.first)
        let objectHead = try s3.server.anonymousHead("larder/cdn/objects/\(object.digest.hex)")
        #expect(objectHead["cache-control"] == "public, max-age=31536000, immutable" && objectHead["content-type"] == "application/octet-stream", "\(objectHead)")
        let documentHead = try s3.server.anonymousHead("larder/cdn/journeys/onboarding.json")
        #expect(documentHead["cache-control"] == "no-cache" && documentHead["content-type"] == "application/json", "\(documentHead)")
        #expect(s3.server.requests.contains { $0.hasPrefix("PUT /larder/cdn/objects/") && $0.hasSuffix(".gz 200") }, "no gzip copy was sent")

        for bundle in packed {
            let fetched = try await LarderProcess.run(
                ["cache", "fetch", bundle.bundleDigest.description, "--origin", s3.deviceOrigin, "--cache", s3.work.path + "/cache"], watchdog: .seconds(120))
            #expect(fetched.status == 0, "\(bundle.name): \(fetched)")
        }
        let prepared = try await LarderProcess.run(
            ["journey", "prepare", "--origin", s3.deviceOrigin, "--key", "pk_any", "--journey", "onboarding", "--cache", s3.work.path + "/device", "--json"],
            watchdog: .seconds(120))
        #expect(prepared.status == 0, "\(prepared) \(prepared.stdout.prefix(2000))")
        #expect(prepared.stdout.contains(packed[2].bundleDigest.description), "\(prepared.stdout.prefix(2000))")
    }

    @Test func publishingAgainUploadsNothing() async throws {
        let s3 = try S3Fixture()
        let archives = try ["onboarding", "paywall"].map { try s3.work.pack(sampleBundles + "/" + $0).archivePath }
        let first = try await s3.publish(archives + ["--journey", "j"])
        #expect(first.status == 0, "\(first)")
        let document = s3.get("journeys/j.json")
        try s3.server.clearLog()
        let again = try await s3.publish(archives + ["--journey", "j", "--json"])
        #expect(again.status == 0, "\(again)")
        #expect(s3.puts.isEmpty, "\(s3.puts)")
        // The list, then per bundle a HEAD of its manifest, of each object and of its archive
        // (what devices fetch, asked for in case the bucket lost some), then the journey's two files.
        let heads = try archives.map { archive in
            let manifest = try BundleVerifier.readManifest(from: try ArchiveReader(path: archive)).manifest
            return 2 + Set(manifest.files.map(\.digest)).count
        }.reduce(0, +)
        #expect(s3.server.requests.count == 1 + heads + 2, "\(s3.server.requests)")
        #expect(s3.server.requests.filter { $0.hasPrefix("HEAD ") }.count == heads, "\(s3.server.requests)")
        #expect(s3.get("journeys/j.json") == document)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect((report["changed"] as? [Any])?.isEmpty == true, "\(again.stdout)")
    }

    /// Temporary credentials (AWS_SESSION_TOKEN, sent as x-amz-security-token), signed
    /// documents and a rollback, all in a bucket.
    @Test func signedRevisionsAndARollbackWithTemporaryCredentials() async throws {
        let s3 = try S3Fixture()
        let environment = s3.server.environment.merging(s3.server.sessionCredentials) { $1 }
        let keys = try await LarderProcess.run(["keys", "generate", "release", "--out", s3.work.path + "/keys"])
        #expect(keys.status == 0, "\(keys)")
        let sign = ["--sign", s3.work.path + "/keys/release.pem"]
        let archives = try ["onboarding", "paywall"].map { try s3.work.pack(sampleBundles + "/" + $0) }
        for archive in archives {
            let outcome = try await s3.publish([archive.archivePath, "--journey", "j"] + sign, environment: environment)
            #expect(outcome.status == 0 && outcome.stdout.contains("signed by"), "\(outcome)")
        }
        let rolledBack = try await s3.publish(["--journey", "j", "--rollback"] + sign, environment: environment)
        #expect(rolledBack.status == 0, "\(rolledBack)")
        let (document, history) = try s3.journey("j")
        #expect(document?.revision == 3 && document?.bundle == archives[0].bundleDigest && document?.signature != nil, "\(String(describing: document))")
        #expect(history.entries.map(\.revision) == [1, 2, 3] && history.entries.last?.rollbackTo == 1)
        let prepared = try await LarderProcess.run(
            ["journey", "prepare", "--origin", s3.deviceOrigin, "--key", "pk_any", "--journey", "j", "--cache", s3.work.path + "/device",
             "--trust", s3.work.path + "/keys/release.pub", "--json"], watchdog: .seconds(120))
        #expect(prepared.status == 0 && prepared.stdout.contains(archives[0].bundleDigest.description), "\(prepared) \(prepared.stdout.prefix(1500))")
    }

    @Test func anOriginFolderMovesToABucket() async throws {
        let s3 = try S3Fixture(prefix: "moved")
        let folder = s3.work.path + "/origin"
        let archives = try ["onboarding", "paywall"].map { try s3.work.pack(sampleBundles + "/" + $0).archivePath }
        for archive in archives { _ = try OriginPublisher.publish(archives: [archive], to: folder, journey: JourneyPublication(id: "j", key: "pk_1")) }
        let moved = try await s3.publish(["--from", folder])
        #expect(moved.status == 0, "\(moved)")
        for name in ["journeys/j.json", JourneyHistory.path(journey: "j")] {
            #expect(s3.get(name) == FileManager.default.contents(atPath: folder + "/" + name), "\(name)")
        }
        #expect(s3.get("access/keys.map") == nil, "the access maps are nginx's")
        try s3.expectDocumentPointsAtACompleteBundle("j", "after moving")
        let objects = try FileManager.default.contentsOfDirectory(atPath: folder + "/objects").filter { !$0.hasPrefix(".") }
        for name in objects { #expect(s3.get("objects/" + name) == FileManager.default.contents(atPath: folder + "/objects/" + name), "\(name)") }
        try s3.server.clearLog()
        let again = try await s3.publish(["--from", folder])
        #expect(again.status == 0, "\(again)")
        #expect(s3.puts.isEmpty, "\(s3.puts)")  // the bundles are complete in the bucket, the journey as new
        let current = try #require(try s3.journey("j").0)
        let fetched = try await LarderProcess.run(
            ["cache", "fetch", current.bundle.description, "--origin", s3.deviceOrigin, "--cache", s3.work.path + "/cache"],
            watchdog: .seconds(120))
        #expect(fetched.status == 0, "\(fetched)")
    }
}
