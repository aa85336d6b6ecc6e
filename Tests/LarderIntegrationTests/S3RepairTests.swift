import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Issue 35, item 11: a bucket gets a lost file back. A bundle whose manifest is in the bucket
/// was sent whole once, but an object or archive can go later (a lifecycle rule, a cleanup, a
/// gateway that acknowledged a PUT it did not keep): publishing again asks for what devices
/// fetch, sends again what is gone before any document points at it, and says so; a rollback
/// to a bundle the bucket lost part of is refused. Against moto, signatures checked.
@Suite struct S3RepairTests {
    /// Removes a key from the bucket with a signed DELETE, as a lifecycle rule would.
    static func delete(_ path: String, from s3: S3Fixture) throws {
        _ = try Origin.shell([
            "curl", "-sf", "-X", "DELETE", "-H", "x-amz-content-sha256: \(SHA256Hasher.hash([UInt8]()).hex)", "--aws-sigv4", "aws:amz:us-east-1:s3",
            "-u", "\(s3.server.accessKeyID):\(s3.server.secretAccessKey)", "\(s3.server.endpoint)/larder/\(s3.prefix)/\(path)",
        ])
        #expect(s3.get(path) == nil, "\(path) is still there")
    }

    static func firstObject(of archive: String) throws -> String {
        let manifest = try BundleVerifier.readManifest(from: try ArchiveReader(path: archive)).manifest
        return "objects/" + (try #require(manifest.files.first)).digest.hex
    }

    @Test func publishingAgainSendsWhatTheBucketLostAndDevicesFetchIt() async throws {
        let s3 = try S3Fixture()
        let packed = try s3.work.pack(sampleBundles + "/onboarding")
        let first = try await s3.publish([packed.archivePath, "--journey", "j"])
        #expect(first.status == 0, "\(first)")
        let object = try Self.firstObject(of: packed.archivePath)
        let archive = "bundles/\(packed.bundleDigest.hex).tar.gz"
        try Self.delete(object, from: s3)
        try Self.delete(archive, from: s3)
        try s3.server.clearLog()

        let again = try await s3.publish([packed.archivePath, "--journey", "j", "--json"])
        #expect(again.status == 0, "\(again)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(Set(report["repaired"] as? [String] ?? []) == [object, archive], "\(again.stdout)")
        #expect(Set(s3.puts.map { $0.split(separator: " ")[1] }) == ["/larder/cdn/\(object)", "/larder/cdn/\(archive)"], "\(s3.puts)")
        try s3.expectDocumentPointsAtACompleteBundle("j", "after the repair")
        let fetched = try await LarderProcess.run(
            ["cache", "fetch", packed.bundleDigest.description, "--origin", s3.deviceOrigin, "--cache", s3.work.path + "/cache"], watchdog: .seconds(120))
        #expect(fetched.status == 0, "\(fetched)")

        // Whole again: nothing is sent, and the message fits a bucket.
        try s3.server.clearLog()
        let third = try await s3.publish([packed.archivePath, "--journey", "j"])
        #expect(third.status == 0 && s3.puts.isEmpty, "\(third) \(s3.puts)")
        #expect(third.stdout.contains("nothing changed in s3://larder/cdn: every file was there"), "\(third.stdout)")
        #expect(!third.stdout.contains("on disk"), "\(third.stdout)")
    }

    @Test func aFolderUploadSendsAgainWhatTheBucketLost() async throws {
        let s3 = try S3Fixture(prefix: "moved")
        let folder = s3.work.path + "/origin"
        let packed = try s3.work.pack(sampleBundles + "/paywall")
        _ = try OriginPublisher.publish(archives: [packed.archivePath], to: folder, journey: JourneyPublication(id: "j", key: nil))
        let moved = try await s3.publish(["--from", folder])
        #expect(moved.status == 0, "\(moved)")
        let object = try Self.firstObject(of: packed.archivePath)
        try Self.delete(object, from: s3)
        try s3.server.clearLog()

        let again = try await s3.publish(["--from", folder])
        #expect(again.status == 0 && again.stdout.contains("repaired 1 file the origin had lost or held damaged: \(object)"), "\(again) \(again.stdout)")
        #expect(s3.puts.map { $0.split(separator: " ")[1] } == ["/larder/moved/\(object)"], "\(s3.puts)")
        #expect(s3.get(object) == FileManager.default.contents(atPath: folder + "/" + object))
        try s3.expectDocumentPointsAtACompleteBundle("j", "after the folder's repair")
    }

    @Test func aRollbackToABundleTheBucketLostPartOfIsRefused() async throws {
        let s3 = try S3Fixture()
        let archives = try ["legacy-prompt", "paywall"].map { try s3.work.pack(sampleBundles + "/" + $0).archivePath }
        for archive in archives {
            let outcome = try await s3.publish([archive, "--journey", "j"])
            #expect(outcome.status == 0, "\(outcome)")
        }
        let object = try Self.firstObject(of: archives[0])
        try Self.delete(object, from: s3)
        let before = s3.get("journeys/j.json")

        let rollback = try await s3.publish(["--journey", "j", "--rollback"])
        #expect(rollback.status == 65 && rollback.stderr.contains("is incomplete on the origin") && rollback.stderr.contains(object), "\(rollback)")
        #expect(s3.get("journeys/j.json") == before, "the document still points at the complete bundle")

        // Publishing the archive again repairs it; then the rollback goes through.
        let repaired = try await s3.publish([archives[0]])
        #expect(repaired.status == 0 && repaired.stdout.contains(object), "\(repaired) \(repaired.stdout)")
        let again = try await s3.publish(["--journey", "j", "--rollback"])
        #expect(again.status == 0, "\(again)")
        try s3.expectDocumentPointsAtACompleteBundle("j", "after the rollback")
    }
}
