import Foundation
import LarderTestSupport
import Testing

/// A denial names its likely cause and the command that fixes it; a backoff names when it ends
/// and `--force`. (On stderr: `--json` output is unchanged.)
@Suite struct JourneyHintsCLITests {
    func scope(_ origin: URL, _ cache: String) -> [String] {
        ["--origin", origin.absoluteString, "--key", "pk_live", "--journey", "onboarding", "--cache", cache]
    }

    @Test(arguments: [
        (401, "hint: HTTP 401: the origin does not know the publishable key 'pk_live' (a typo in --key, or a key never granted or since revoked: 'larder keys list --origin <origin-folder>' shows the keys it knows); grant it with 'larder keys grant pk_live --journey onboarding --origin <origin-folder>', then reload the origin ('Tools/origin/origin.sh reload <run-dir>', or 'nginx -s reload'); a later run asks again"),
        (403, "hint: HTTP 403: the origin knows the key 'pk_live' but has not granted it journey 'onboarding'; grant it with 'larder keys grant pk_live --journey onboarding --origin <origin-folder>', then reload the origin ('Tools/origin/origin.sh reload <run-dir>', or 'nginx -s reload'); a later run asks again"),
    ])
    func aDenialSaysWhatFixesIt(_ status: Int, _ hint: String) throws {
        let origin = try FaultOrigin { _ in .respond(status: status, body: []) }
        defer { origin.stop() }
        let scratch = try Scratch()
        let result = try CLI.run(["journey", "prepare"] + scope(origin.base, scratch.path + "/cache"))
        #expect(result.status == 77, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines == ["Error: the origin denied journey 'onboarding' (HTTP \(status))", hint], "\(result.stderr)")
        let json = try CLI.run(["journey", "prepare", "--json"] + scope(origin.base, scratch.path + "/cache"))
        #expect(json.status == 77)
        #expect(json.stdout.contains(#""error":{"code":"denied","message":"the origin denied journey 'onboarding' (HTTP \#(status))","status":\#(status)}"#))
    }

    /// A second 404 in a row confirms the journey is not there: say how to publish it.
    @Test func aConfirmedNotFoundSaysHowToPublish() throws {
        let origin = try FaultOrigin { _ in .respond(status: 404, body: []) }
        defer { origin.stop() }
        let scratch = try Scratch()
        let first = try CLI.run(["journey", "prepare"] + scope(origin.base, scratch.path + "/cache"))
        #expect(!first.stderr.contains("hint: HTTP 404"), "\(first.stderr)")
        let second = try CLI.run(["journey", "prepare", "--force"] + scope(origin.base, scratch.path + "/cache"))
        #expect(second.status == 77, "\(second)")
        #expect(second.stderr.hasSuffix("""
            hint: HTTP 404: the origin has no journey 'onboarding' (check --journey, or publish it with 'larder publish <archive> \
            --origin <origin-folder> --journey onboarding')

            """), "\(second.stderr)")
    }

    @Test func aBackoffNamesWhenItEndsAndForce() throws {
        let origin = try FaultOrigin { _ in .respond(status: 503, body: []) }
        defer { origin.stop() }
        let scratch = try Scratch()
        let cache = scratch.path + "/cache"
        let offline = try CLI.run(["journey", "prepare", "--offline"] + scope(origin.base, cache))
        #expect(offline.status == 69)
        #expect(!offline.stderr.contains("hint:"), "\(offline.stderr)")
        let online = try CLI.run(["journey", "prepare"] + scope(origin.base, cache))
        #expect(online.status == 69)
        #expect(origin.requests.isEmpty)
        let lines = online.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(online.stderr)")
        #expect(lines.first?.hasPrefix("Error: the next attempt may be made at ") == true)
        let hint = try #require(lines.last)
        #expect(hint.hasPrefix("hint: the origin was not asked: an earlier run failed to reach it (or ran --offline), so the host backs off until 20"), "\(hint)")
        #expect(hint.contains(" (in "))
        #expect(hint.hasSuffix(" s); add --force to ask the origin now"), "\(hint)")
        let forced = try CLI.run(["journey", "prepare", "--force"] + scope(origin.base, cache))
        #expect(forced.status == 69)
        #expect(!origin.requests.isEmpty)
    }
}
