import Foundation
import LarderTestSupport
import Testing

/// `larder journey …` end to end, without a network: help, usage errors, status of an empty
/// cache, offline preparation with and without an embedded default. (Paths that talk to a real
/// origin are covered by the integration tests.)
@Suite struct JourneyCLITests {
    /// An origin nothing listens on; `--offline` never asks it anyway.
    static let origin = "http://127.0.0.1:9/"
    static let documentURL = "http://127.0.0.1:9/journeys/onboarding.json"

    func scope(_ cache: String) -> [String] {
        ["--origin", Self.origin, "--key", "pk_sample_key", "--journey", "onboarding", "--cache", cache]
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func helpIsTheSameEveryWay() throws {
        // Wide enough that each USAGE line is one line (UsageWrapping), as the substrings below ask.
        let wide = ["COLUMNS": "200"]
        let flag = try CLI.run(["journey", "--help"], environment: wide)
        #expect(flag.status == 0)
        #expect(flag.stdout.hasPrefix("OVERVIEW: Prepare or present a journey with the host, headless"))
        #expect(flag.stdout.contains("\nUSAGE: larder journey <subcommand> --origin <url> --key <key> --journey <id> "))
        #expect(flag.stdout.contains("\nSUBCOMMANDS:\n  prepare "))
        #expect(flag.stdout.contains("  --offline               Fail every request without touching the network"))
        #expect(flag.stdout.contains("EXIT STATUS: 0 prepared or presented"))
        #expect(try CLI.run(["journey", "-h"], environment: wide).stdout == flag.stdout)
        #expect(try CLI.run(["help", "journey"], environment: wide).stdout == flag.stdout)
        #expect(try CLI.run(["--help"], environment: wide).stdout.contains("\n  journey                 "))
        for name in ["prepare", "present", "status"] {
            let sub = try CLI.run(["journey", name, "--help"], environment: wide)
            #expect(sub.status == 0)
            #expect(sub.stdout.contains("\nUSAGE: larder journey \(name) --origin <url> --key <key> --journey <id> [--cache <dir>] "))
            #expect(sub.stdout.contains("  --json "))
            #expect(try CLI.run(["journey", name, "-h"], environment: wide).stdout == sub.stdout)
        }
        #expect(try CLI.run(["journey", "status", "--help"], environment: wide).stdout.contains("--embedded") == false)
    }

    @Test(arguments: [
        (["journey", "prepare", "--origin", origin, "--journey", "onboarding"], "Error: Missing '--key <key>'", "journey prepare"),
        (["journey", "present", "--key", "k", "--journey", "onboarding"], "Error: Missing '--origin <url>'", "journey present"),
        (["journey", "status", "--origin", origin, "--key", "k"], "Error: Missing '--journey <id>'", "journey status"),
        (["journey", "frobnicate"], "Error: Unknown subcommand 'frobnicate'", "journey"),
        (["journey"], "Error: Missing subcommand", "journey"),
        (["journey", "status", "--origin", "ftp://example.com/", "--key", "k", "--journey", "onboarding"],
         "Error: Invalid '--origin <url>': 'ftp://example.com/' is not an http or https URL", "journey status"),
        (["journey", "prepare", "--origin", "not a url", "--key", "k", "--journey", "onboarding"],
         "Error: Invalid '--origin <url>': 'not a url' is not an http or https URL", "journey prepare"),
        (["journey", "prepare", "--origin", origin, "--key", "k", "--journey", "../x"],
         "Error: Invalid '--journey <id>': '../x' may use only letters, digits, '_', '-' and '.'", "journey prepare"),
        (["journey", "status", "--origin", origin, "--key", "k", "--journey", "onboarding", "--embedded", "a.tar.gz"],
         "Error: Unknown option '--embedded'", "journey status"),
        (["journey", "prepare", "extra"], "Error: Unexpected argument 'extra'", "journey prepare"),
        (["journey", "prepare", "--origin", origin, "--key", "k", "--journey", "onboarding", "--deadline", "never"],
         "Error: Invalid '--deadline <duration>': 'never' (use e.g. 5s, 1500ms, 2min)", "journey prepare"),
        (["journey", "present", "--origin", origin, "--key", "k", "--journey", "onboarding", "--timeout", "0"],
         "Error: Invalid '--timeout <duration>': '0' (use e.g. 5s, 1500ms, 2min)", "journey present"),
        (["journey", "present", "--origin", origin, "--key", "k", "--journey", "onboarding", "--context", "placement"],
         "Error: Invalid '--context <key=value>': 'placement' is not key=value", "journey present"),
        (["journey", "present", "--origin", origin, "--key", "k", "--journey", "onboarding", "--context", "=settings"],
         "Error: Invalid '--context <key=value>': '=settings' is not key=value", "journey present"),
        (["journey", "present", "--origin", origin, "--key", "k", "--journey", "onboarding", "--context", "a=1", "--context", "a=2"],
         "Error: Invalid '--context <key=value>': 'a' is given twice", "journey present"),
        (["journey", "prepare", "--origin", origin, "--key", "k", "--journey", "onboarding", "--context", "a=1"],
         "Error: Unknown option '--context'", "journey prepare"),
    ])
    func usageErrorsExit64(_ arguments: [String], _ message: String, _ command: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == message)
        #expect(lines.dropFirst().first?.hasPrefix("Usage: larder \(command) ") == true)
        #expect(lines.last == "  See 'larder \(command) --help' for more information.")
    }

    @Test func statusOfAnEmptyCacheIsNeverFetched() throws {
        let scratch = try Scratch()
        // An empty cache: a folder that is not there is an error (MissingCacheCLITests).
        try FileManager.default.createDirectory(atPath: scratch.path + "/cache", withIntermediateDirectories: false)
        let result = try CLI.run(["journey", "status"] + scope(scratch.path + "/cache"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == """
            Journey           onboarding
            Revision          none (never fetched)
            Bundle            none
            Refresh           -
            Renewed           never
            Freshness         none: nothing authorised yet
            Cached            no
            Failures          0
            Next attempt      any time
            Pending captures  0 of this journey, 0 in all

            """)
        let json = try CLI.run(["journey", "status", "--json"] + scope(scratch.path + "/cache"))
        #expect(json.status == 0)
        #expect(json.stdout == #"""
            {"ageMs":null,"authorisedSinceStart":false,"bundle":null,"cached":false,"denial":null,"failures":0,"freshness":null,"journey":"onboarding","journeyCaptures":0,"nextAttempt":null,"pendingCaptures":0,"refresh":null,"renewed":null,"revision":null}

            """#)
    }

    @Test func offlineWithNothingCachedExits69AndBacksOff() throws {
        let scratch = try Scratch()
        let cache = scratch.path + "/cache"
        let first = try CLI.run(["journey", "prepare", "--offline"] + scope(cache))
        #expect(first.status == 69)
        #expect(first.stderr.split(separator: "\n").first == "Error: cannot reach the origin: \(Self.documentURL): offline")
        #expect(first.stdout.contains("MS  EVENT   DETAIL\n"))
        #expect(first.stdout.contains("  failed  cannot reach the origin: \(Self.documentURL): offline; next attempt after 30 s"))

        // The failure started a backoff: the next run does not ask, and says so.
        let second = try CLI.run(["journey", "prepare", "--offline", "--json"] + scope(cache))
        #expect(second.status == 69)
        #expect(second.stderr.hasPrefix("Error: the next attempt may be made at "))
        let report = try json(second.stdout)
        let error = try #require(report["error"] as? [String: Any])
        #expect(error["code"] as? String == "backing-off")
        #expect(report["journey"] as? String == "onboarding")
        #expect(report["source"] is NSNull)
        #expect(report["bundle"] is NSNull)
        let timeline = try #require(report["timeline"] as? [[String: Any]])
        #expect(timeline.map { $0["kind"] as? String } == ["backing-off"])

        let status = try json(try CLI.run(["journey", "status", "--json"] + scope(cache)).stdout)
        #expect(status["failures"] as? Int == 1)
        #expect(status["nextAttempt"] is String)
    }

    @Test func offlineFallsBackToTheEmbeddedDefault() throws {
        let scratch = try Scratch()
        let archive = try packSample("onboarding", into: scratch.path + "/out")
        let result = try CLI.run(["journey", "prepare", "--offline", "--embedded", archive, "--json"] + scope(scratch.path + "/cache"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let report = try json(result.stdout)
        #expect(report["source"] as? String == "embedded")
        #expect(report["revision"] as? Int == 0)
        #expect(report["mode"] as? String == "prepared-hidden")
        #expect(report["bundle"] as? String == "sha256:" + URL(fileURLWithPath: archive).lastPathComponent.dropLast(7))
        #expect((report["resources"] as? Int ?? 0) > 1)
        #expect((report["fonts"] as? Int ?? 0) > 0)
        #expect((report["bytes"] as? Int ?? 0) > 0)
        #expect(report["elapsedMs"] is Int)
        #expect(report["error"] == nil)
        #expect(report["session"] == nil)
        let kinds = try #require(report["timeline"] as? [[String: Any]]).compactMap { $0["kind"] as? String }
        #expect(kinds == ["failed", "embedded", "renderer-ready"])

        let text = try CLI.run(["journey", "prepare", "--offline", "--embedded", archive] + scope(scratch.path + "/cache"))
        #expect(text.status == 0)
        #expect(text.stdout.contains("\nSource     embedded\nMode       prepared hidden\n"))
    }

    @Test
    func presentsOfflineFromTheEmbeddedDefault() throws {
        let scratch = try Scratch()
        let archive = try packSample("onboarding", into: scratch.path + "/out")
        let result = try CLI.run(["journey", "present", "--offline", "--embedded", archive, "--json"] + scope(scratch.path + "/cache"))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result.stdout)
        #expect(report["source"] as? String == "embedded")
        let session = try #require(report["session"] as? String)
        let timeline = try #require(report["timeline"] as? [[String: Any]])
        #expect(timeline.compactMap { $0["kind"] as? String }.suffix(3) == ["presented", "captured", "dismissed"])
        let presented = timeline.first { $0["kind"] as? String == "presented" }?["detail"] as? String
        #expect(presented?.hasPrefix("session \(session):") == true, "the reported session is the one presented")
        let status = try json(try CLI.run(["journey", "status", "--json"] + scope(scratch.path + "/cache")).stdout)
        #expect(status["pendingCaptures"] as? Int == 1)
    }

    @Test func thePresentationCarriesItsContext() throws {
        let scratch = try Scratch()
        let archive = try packSample("onboarding", into: scratch.path + "/out")
        let context = ["--context", "placement=settings", "--context", "query=a=b", "--context", "empty="]
        let result = try CLI.run(["journey", "present", "--offline", "--embedded", archive, "--json"] + context + scope(scratch.path + "/cache"))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try json(result.stdout)
        #expect(report["context"] as? [String: String] == ["placement": "settings", "query": "a=b", "empty": ""])

        let text = try CLI.run(["journey", "present", "--offline", "--embedded", archive, "--context", "placement=settings"] + scope(scratch.path + "/cache"))
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("\nContext    placement=settings\n"), "\(text.stdout)")
        let plain = try json(try CLI.run(["journey", "present", "--offline", "--embedded", archive, "--json"] + scope(scratch.path + "/cache")).stdout)
        #expect(plain["context"] as? [String: String] == [:])
    }

    @Test func aMissingEmbeddedArchiveExits66() throws {
        let scratch = try Scratch()
        let result = try CLI.run(["journey", "prepare", "--offline", "--embedded", scratch.path + "/none.tar.gz"] + scope(scratch.path + "/cache"))
        #expect(result.status == 66)
        #expect(result.stderr == "Error: \(scratch.path)/none.tar.gz: no such archive\n")
    }
}

/// `larder journey present` reports how the presentation ended and its last screen (issue 21
/// item 5).
@Suite struct JourneyOutcomeCLITests {
    @Test func presentReportsTheOutcomeAndTheScreen() throws {
        let scratch = try Scratch()
        let archive = try packSample("onboarding", into: scratch.path + "/out")
        let scope = JourneyCLITests().scope(scratch.path + "/cache")
        let result = try CLI.run(["journey", "present", "--offline", "--embedded", archive, "--json"] + scope)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JourneyCLITests().json(result.stdout)
        #expect(report["outcome"] as? String == "ended-by-app")
        #expect(report["screen"] as? [String: String] == ["id": "index.html", "name": "index"])

        let text = try CLI.run(["journey", "present", "--offline", "--embedded", archive] + scope)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("\nOutcome    ended-by-app (the app dismissed it)\nScreen     index.html (index)\n"), "\(text.stdout)")

        let prepared = try JourneyCLITests().json(try CLI.run(["journey", "prepare", "--offline", "--embedded", archive, "--json"] + scope).stdout)
        #expect(prepared["outcome"] == nil)
        #expect(prepared["screen"] == nil)
    }
}
