import Foundation
import LarderTestSupport
import LarderFormat
import LarderPack
import LarderPublish
import LarderTransport
import Testing

/// The origin's access rules over real HTTP against nginx.
@Suite(.serialized) struct AccessRuleTests {
    @Test func configurationRequestsNeedAKeyGrantedTheJourney() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let paywall = try work.pack(sampleBundles + "/paywall")
        let legacy = try work.pack(sampleBundles + "/legacy-prompt")
        try origin.publish([paywall.archivePath], journey: JourneyPublication(id: "paywall", key: "pk_live_ok"))
        try origin.publish([legacy.archivePath], journey: JourneyPublication(id: "legacy", key: "pk_live_other"))
        try origin.reload()
        let transport = URLSessionTransport()
        let url = origin.base.appendingPathComponent("journeys/paywall.json")
        func get(_ url: URL, _ headers: [String: String] = [:]) async throws -> HTTPResponse {
            try await transport.send(HTTPRequest(url: url, headers: headers))
        }

        #expect(try await get(url).status == 401)
        #expect(try await get(url, ["X-Larder-Key": "pk_live_unknown"]).status == 401)
        #expect(try await get(url, ["X-Larder-Key": "PK_LIVE_OK"]).status == 401)  // keys are exact
        #expect(try await get(url, ["X-Larder-Key": "pk_live_other"]).status == 403)
        #expect(try await get(origin.base.appendingPathComponent("journeys/nope.json"), ["X-Larder-Key": "pk_live_ok"]).status == 404)

        let ok = try await get(url, ["X-Larder-Key": "pk_live_ok"])
        #expect(ok.status == 200)
        #expect(ok.headers["cache-control"] == "no-cache")
        let document = try JourneyDocument(decoding: [UInt8](ok.body))
        #expect(document.bundle == paywall.bundleDigest)
        #expect(document.revision == 1)
        let etag = try #require(ok.headers["etag"])
        let unchanged = try await get(url, ["X-Larder-Key": "pk_live_ok", "If-None-Match": etag])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)

        // A new revision gets a new ETag even when published within the same second.
        try origin.publish([legacy.archivePath], journey: JourneyPublication(id: "paywall", key: "pk_live_ok"))
        let revised = try await get(url, ["X-Larder-Key": "pk_live_ok", "If-None-Match": etag])
        #expect(revised.status == 200)
        #expect(try JourneyDocument(decoding: [UInt8](revised.body)).revision == 2)

        // Content-addressed files are immutable and public.
        let object = try await get(origin.base.appendingPathComponent("objects/" + paywall.bundleDigest.hex))
        #expect(object.status == 404)  // a bundle digest is not an object
        let archive = try await get(origin.base.appendingPathComponent("bundles/\(paywall.bundleDigest.hex).tar.gz"))
        #expect(archive.status == 200)
        #expect(archive.headers["cache-control"]?.contains("immutable") == true)
        #expect(SHA256Hasher.hash(archive.body) == paywall.archiveDigest)

        // Revoking the key (rewrite the maps, reload nginx) turns 200 into 401.
        try Data().write(to: URL(fileURLWithPath: origin.root + "/access/keys.map"))
        try Data().write(to: URL(fileURLWithPath: origin.root + "/access/grants.map"))
        try origin.reload()
        #expect(try await get(url, ["X-Larder-Key": "pk_live_ok"]).status == 401)
    }

    @Test func republishingIdenticalContentChangesNothing() throws {
        let origin = try Origin()
        let work = try Workspace()
        let report = try work.pack(sampleBundles + "/onboarding")
        let first = try origin.publish([report.archivePath], journey: JourneyPublication(id: "onboarding", key: "pk_1", now: Date(timeIntervalSince1970: 0)))
        #expect(!first.changed.isEmpty)
        let listing = try FileManager.default.subpathsOfDirectory(atPath: origin.root).sorted()
        let stamps = try listing.map { try FileManager.default.attributesOfItem(atPath: origin.root + "/" + $0)[.modificationDate] as? Date }
        let again = try origin.publish([report.archivePath], journey: JourneyPublication(id: "onboarding", key: "pk_1"))
        #expect(again.changed.isEmpty)
        #expect(again.journey?.revision == 1)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: origin.root).sorted() == listing)
        #expect(try listing.map { try FileManager.default.attributesOfItem(atPath: origin.root + "/" + $0)[.modificationDate] as? Date } == stamps)
    }
}
