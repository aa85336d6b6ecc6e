import Foundation
import LarderTestSupport
import Testing

/// `larder journey present --bundle <digest>`: a preview of a given bundle, end to end without
/// a network (`--offline`, a bundle the embedded default put in the cache) [seed 001].
@Suite struct JourneyPreviewCLITests {
    static let origin = "http://127.0.0.1:9/"

    func scope(_ cache: String) -> [String] {
        ["--origin", Self.origin, "--key", "pk_sample_key", "--journey", "onboarding", "--cache", cache]
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func previewsACachedBundleByDigest() throws {
        let scratch = try Scratch()
        let archive = try packSample("onboarding", into: scratch.path + "/out")
        let cache = scratch.path + "/cache"
        let prepared = try CLI.run(["journey", "prepare", "--offline", "--embedded", archive, "--json"] + scope(cache))
        #expect(prepared.status == 0, "\(prepared.stderr)")
        let bundle = try #require(try json(prepared.stdout)["bundle"] as? String)

        for given in [bundle, String(bundle.dropFirst("sha256:".count))] {
            let result = try CLI.run(["journey", "present", "--offline", "--bundle", given, "--context", "qa=1", "--json"] + scope(cache))
            #expect(result.status == 0, "\(result.stderr)")
            let report = try json(result.stdout)
            #expect(report["preview"] as? Bool == true)
            #expect(report["bundle"] as? String == bundle)
            #expect(report["revision"] is NSNull)
            #expect(report["outcome"] as? String == "ended-by-app")
            #expect(report["context"] as? [String: String] == ["qa": "1"])
        }
        let text = try CLI.run(["journey", "present", "--offline", "--bundle", bundle] + scope(cache))
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Preview") && text.stdout.contains("not the journey's revision"))
        // Never recorded as the journey's revision.
        let status = try json(try CLI.run(["journey", "status", "--json"] + scope(cache)).stdout)
        #expect(status["revision"] is NSNull)

        let plain = try json(try CLI.run(["journey", "present", "--offline", "--embedded", archive, "--json"] + scope(cache)).stdout)
        #expect(plain["preview"] as? Bool == false)
    }

    @Test func aBundleItCannotGetOrABadDigest() throws {
        let scratch = try Scratch()
        let missing = "sha256:" + String(repeating: "ab", count: 32)
        let offline = try CLI.run(["journey", "present", "--offline", "--bundle", missing] + scope(scratch.path + "/cache"))
        #expect(offline.status == 69)
        #expect(offline.stderr.contains(missing))

        let bad = try CLI.run(["journey", "present", "--bundle", "sha256:xyz"] + scope(scratch.path + "/cache"))
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix("Error: Invalid '--bundle <digest>': 'sha256:xyz'"))
        #expect(try CLI.run(["journey", "present", "--help"]).stdout.contains("  --bundle <digest> "))
    }
}
