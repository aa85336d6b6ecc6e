import Foundation
import LarderTestSupport
import Testing

/// `larder journey prepare|present --force-refresh` and `--startup`, end to end without a
/// network (`--offline`, an embedded default): the options, their help, their usage errors and
/// what the report says.
@Suite struct JourneyPolicyCLITests {
    static let origin = "http://127.0.0.1:9/"

    func scope(_ cache: String) -> [String] {
        ["--origin", Self.origin, "--key", "pk_sample_key", "--journey", "onboarding", "--cache", cache]
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func forceRefreshIsItsOwnFlag() throws {
        for name in ["prepare", "present"] {
            let help = try CLI.run(["journey", name, "--help"]).stdout
            #expect(help.contains("  --force-refresh "))
            #expect(help.contains("  --force "))
        }
        #expect(try CLI.run(["journey", "status", "--help"]).stdout.contains("--force-refresh") == false)
    }

    @Test func forceRefreshSaysWhyTheFallbackServes() throws {
        let scratch = try Scratch()
        let archive = try packSample("onboarding", into: scratch.path + "/out")
        let result = try CLI.run(
            ["journey", "prepare", "--offline", "--embedded", archive, "--force-refresh", "--json"] + scope(scratch.path + "/cache"))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result.stdout)
        #expect(report["source"] as? String == "embedded")
        #expect((report["fallbackReason"] as? String)?.contains("forced refresh") == true)
        let kinds = try #require(report["timeline"] as? [[String: Any]]).compactMap { $0["kind"] as? String }
        #expect(kinds == ["forced", "failed", "embedded", "renderer-ready"])

        let plain = try json(try CLI.run(["journey", "prepare", "--offline", "--embedded", archive, "--json"] + scope(scratch.path + "/cache")).stdout)
        #expect(plain["fallbackReason"] is NSNull)
    }
}

extension JourneyPolicyCLITests {
    @Test func startupIsAPolicyByName() throws {
        let help = try CLI.run(["journey", "prepare", "--help"]).stdout
        #expect(help.contains("  --startup <policy> "))
        let bad = try CLI.run(["journey", "prepare", "--startup", "eager"] + scope("/nonexistent"))
        #expect(bad.status == 64)
        #expect(bad.stderr.hasPrefix(
            "Error: Invalid '--startup <policy>': 'eager' (use ask-origin-first, cache-first or require-authorisation)\nUsage: larder journey prepare "))
    }

    @Test(arguments: ["ask-origin-first", "cache-first", "require-authorisation"])
    func eachStartupPolicyRuns(_ policy: String) throws {
        let scratch = try Scratch()
        let archive = try packSample("onboarding", into: scratch.path + "/out")
        let result = try CLI.run(
            ["journey", "present", "--offline", "--embedded", archive, "--startup", policy, "--json"] + scope(scratch.path + "/cache"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try json(result.stdout)["source"] as? String == "embedded")
    }
}
