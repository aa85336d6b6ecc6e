import Foundation
import LarderTestSupport
import Testing

/// `larder journey trigger` and `larder publish --trigger` without a network: help, usage
/// errors (exit 64, nothing written), and a decision with nothing known.
@Suite struct TriggerUsageCLITests {
    static let origin = "http://127.0.0.1:9/"

    @Test func helpNamesTheDecisions() throws {
        let help = try CLI.run(["journey", "trigger", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: Fire an app event"))
        #expect(help.stdout.contains("\nUSAGE: larder journey trigger <event> --origin <url> --key <key> "))
        #expect(help.stdout.contains(#""decision" is one of "shown", "suppressed", "no-match"."#))
        #expect(try CLI.run(["journey", "--help"]).stdout.contains("\n  trigger <event>         Fire an app event"))
        #expect(try CLI.run(["publish", "--help"]).stdout.contains("  --trigger <event>       "))
    }

    @Test(arguments: [
        (["journey", "trigger", "--origin", origin, "--key", "k"], "Error: Missing expected argument '<event>'", "journey trigger"),
        (["journey", "trigger", "Checkout", "--origin", origin, "--key", "k"],
         "Error: Invalid '<event>': 'Checkout' is not an event name: use lowercase letters, digits, '_' and ':', starting with a letter (at most 100)", "journey trigger"),
        (["journey", "trigger", "checkout_started", "--origin", origin], "Error: Missing '--key <key>'", "journey trigger"),
        (["journey", "trigger", "checkout_started", "--origin", origin, "--key", "k", "--journey", "j"], "Error: Unknown option '--journey'", "journey trigger"),
        (["journey", "trigger", "checkout_started", "--origin", origin, "--key", "k", "--property", "cart"],
         "Error: Invalid '--property <key=value>': 'cart' is not key=value", "journey trigger"),
        (["publish", "a.tar.gz", "--origin", "/tmp/o", "--trigger", "checkout_started"], "Error: --trigger goes with --journey", "publish"),
        (["publish", "a.tar.gz", "--origin", "/tmp/o", "--journey", "j", "--reentry", "once"], "Error: --reentry goes with --trigger", "publish"),
        (["publish", "a.tar.gz", "--origin", "/tmp/o", "--journey", "j", "--trigger", "Bad"],
         "Error: Invalid '--trigger <event>': 'Bad' is not an event name: use lowercase letters, digits, '_' and ':', starting with a letter (at most 100)", "publish"),
        (["publish", "a.tar.gz", "--origin", "/tmp/o", "--journey", "j", "--trigger", "a", "--reentry", "sometimes"],
         "Error: Invalid '--reentry <policy>': 'sometimes' (use once, always or a duration such as 1d, 12h, 30min)", "publish"),
        (["publish", "--origin", "/tmp/o", "--journey", "j", "--rollback", "--trigger", "a"], "Error: --trigger goes with a publish, not with --rollback", "publish"),
        (["publish", "a.tar.gz", "--origin", "s3://bucket", "--journey", "j", "--trigger", "a"],
         "Error: --trigger goes with a folder origin (publish to a folder, then serve triggers.json from it)", "publish"),
    ])
    func usageErrorsExit64(_ arguments: [String], _ message: String, _ command: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == message)
        #expect(lines.last == "  See 'larder \(command) --help' for more information.")
    }

    @Test func offlineWithNothingKnownIsNoContent() throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("larder-trigger-\(UUID().uuidString)").path
        defer { do { try FileManager.default.removeItem(atPath: cache) } catch { print("could not remove \(cache): \(error)") } }
        let result = try CLI.run(["journey", "trigger", "checkout_started", "--origin", Self.origin, "--key", "k", "--cache", cache, "--offline", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let decision = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(decision["decision"] as? String == "suppressed" && decision["reason"] as? String == "no-content")
        #expect(decision["event"] as? String == "checkout_started")
    }
}
