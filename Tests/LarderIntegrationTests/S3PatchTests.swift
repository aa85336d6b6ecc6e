import Foundation
import LarderFormat
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Patches in a bucket (moto's S3 server on 127.0.0.1): the second revision of a journey gets
/// its patch and patch index, sent before its manifest, and a device holding the first
/// revision moves the patch.
@Suite struct S3PatchTests {
    @Test func aJourneysNextRevisionGetsPatchesBeforeItsManifest() async throws {
        let s3 = try S3Fixture()
        let (first, second) = try PatchFetchTests.Revisions.pack(in: s3.work)
        let published = try await s3.publish([first.archivePath, "--journey", "patchflow"])
        #expect(published.status == 0, "\(published)")
        try s3.server.clearLog()
        let again = try await s3.publish([second.archivePath, "--journey", "patchflow"])
        #expect(again.status == 0, "\(again)")

        let indexBytes = try #require(s3.get(PatchIndex.path(bundle: second.bundleDigest)), "no patch index in the bucket")
        let index = try PatchIndex(decoding: [UInt8](indexBytes))
        let entry = try #require(index.entries.first)
        #expect(index.entries.count == 1)
        let patch = try #require(s3.get(PatchIndex.path(of: entry.patch)))
        #expect(SHA256Hasher.hash([UInt8](patch)) == entry.patch && Int64(patch.count) == entry.size)
        // The safe order: the patch, then the index, then the manifest, then the document.
        let puts = s3.puts
        let order = ["/patches/", "/patches.json", "/manifest.json", "/journeys/patchflow.json"].map { part in
            puts.firstIndex { $0.contains(part) } ?? -1
        }
        #expect(order.allSatisfy { $0 >= 0 } && order == order.sorted(), "\(puts)")
        let indexHead = try s3.server.anonymousHead("larder/\(s3.prefix)/\(PatchIndex.path(bundle: second.bundleDigest))")
        #expect(indexHead["cache-control"] == "public, max-age=31536000, immutable", "\(indexHead)")

        let cache = s3.work.path + "/cache"
        let old = try await LarderProcess.run(["cache", "fetch", first.bundleDigest.description, "--origin", s3.deviceOrigin, "--cache", cache])
        #expect(old.status == 0, "\(old)")
        let update = try await LarderProcess.run(
            ["cache", "fetch", second.bundleDigest.description, "--origin", s3.deviceOrigin, "--cache", cache, "--json"])
        #expect(update.status == 0, "\(update)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(update.stdout.utf8)) as? [String: Any])
        #expect(report["patchesApplied"] as? Int == 1 && report["patchFallbacks"] as? Int == 0, "\(update.stdout)")
        let bytes = try #require(report["bytes"] as? [String: Int])
        #expect(bytes["objects"] == 0 && (report["bytesDownloaded"] as? Int ?? .max) <= 2_500, "\(update.stdout)")
    }

    @Test func anOriginFolderUploadCarriesItsPatches() async throws {
        let s3 = try S3Fixture()
        let (first, second) = try PatchFetchTests.Revisions.pack(in: s3.work)
        let site = s3.work.path + "/site"
        let journey = JourneyPublication(id: "patchflow", key: nil)
        _ = try OriginPublisher.publish(archives: [first.archivePath], to: site, journey: journey)
        _ = try OriginPublisher.publish(archives: [second.archivePath], to: site, journey: journey)
        let index = try PatchIndex(decoding: [UInt8](try Data(contentsOf: URL(fileURLWithPath: site + "/" + PatchIndex.path(bundle: second.bundleDigest)))))
        let entry = try #require(index.entries.first)

        let uploaded = try await s3.publish(["--from", site])
        #expect(uploaded.status == 0, "\(uploaded)")
        #expect(s3.get(PatchIndex.path(bundle: second.bundleDigest)).map { [UInt8]($0) } == index.bytes)
        #expect(s3.get(PatchIndex.path(of: entry.patch)).map { SHA256Hasher.hash([UInt8]($0)) } == entry.patch)
        let puts = s3.puts
        let order = ["/patches/", "/patches.json", "/\(second.bundleDigest.hex)/manifest.json"].map { part in puts.firstIndex { $0.contains(part) } ?? -1 }
        #expect(order.allSatisfy { $0 >= 0 } && order == order.sorted(), "\(puts)")
    }
}
