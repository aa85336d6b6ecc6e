import Foundation
import Testing

/// Options read through their one declaration (TypedOption): a value the option refuses is a
/// usage error (64) with the option's message and the command's usage, on stderr and, under
/// `--json`, in the failure object; nothing is written.
@Suite struct TypedOptionsCLITests {
    @Test(arguments: [
        (["pack", "x", "--level", "0"], "--level must be 1 to 9, not '0'", "pack"),
        (["publish", "a.tar.gz", "--origin", "o", "--journey", "j", "--refresh", "0"], "--refresh must be a positive number of seconds", "publish"),
        (["publish", "--origin", "o", "--journey", "j", "--rollback", "--to", "-3"], "--to must be a revision number", "publish"),
        (["publish", "a.tar.gz", "--origin", "o", "--journey", "j", "--rollout", "101"],
         "--rollout must be a percentage from 1 to 100, without --rollback", "publish"),
        (["publish", "--origin", "o", "--journey", "j", "--rollback", "--rollout", "50"],
         "--rollout must be a percentage from 1 to 100, without --rollback", "publish"),
        (["publish", "a.tar.gz", "--origin", "o", "--journey", "j", "--trigger", "checkout_started", "--reentry", "sometimes"],
         "Invalid '--reentry <policy>': 'sometimes' (use once, always or a duration such as 1d, 12h, 30min)", "publish"),
        (["publish", "a.tar.gz", "--origin", "o", "--journey", "j", "--trigger", "checkout_started", "--reentry", "0s"],
         "Invalid '--reentry <policy>': '0s' (use once, always or a duration such as 1d, 12h, 30min)", "publish"),
        (["journey", "present", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--cache", "/nonexistent/cache", "--context", "=v"],
         "Invalid '--context <key=value>': '=v' is not key=value", "journey present"),
        (["journey", "present", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--cache", "/nonexistent/cache",
          "--context", "plan=pro", "--context", "plan=free", "--context", "novalue"],
         "Invalid '--context <key=value>': 'plan' is given twice", "journey present"),
        (["journey", "trigger", "checkout_started", "--origin", "http://127.0.0.1:9/", "--key", "k", "--cache", "/nonexistent/cache", "--property", "plan"],
         "Invalid '--property <key=value>': 'plan' is not key=value", "journey trigger"),
        (["journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--cache", "/nonexistent/cache",
          "--trust", "/nonexistent/k.pub"],
         "Invalid '--trust <public-key>': '/nonexistent/k.pub' is neither ed25519:<base64> nor a readable key file", "journey prepare"),
        // An origin folder that exists (nothing is written: the journey is refused first).
        (["keys", "grant", "pk", "--origin", "/tmp", "--journey", "bad id"], "grant needs a valid '--journey <id>'", "keys"),
        (["cache", "evict", "--to", "5XB", "--cache", "/nonexistent/cache"], "'5XB' is not a size (try 500MB or 2GiB)", "cache evict"),
        (["cache", "evict", "--cache", "/nonexistent/cache"], "Missing '--to <size>'", "cache evict"),
        (["journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--deadline", "soon", "--cache", "/nonexistent/cache"],
         "Invalid '--deadline <duration>': 'soon' (use e.g. 5s, 1500ms, 2min)", "journey prepare"),
        (["journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--cache", "/nonexistent/cache", "--renderer", "gpu"],
         "Invalid '--renderer <name>': 'gpu' (headless or webkit)", "journey prepare"),
        (["journey", "present", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--cache", "/nonexistent/cache",
          "--renderer", "webkit", "--viewport", "430x0"],
         "Invalid '--viewport <WxH>': '430x0' (for example 430x932, each 1 to 8192)", "journey present"),
        (["render", "x.tar.gz", "--screenshot", "/nonexistent/x.png", "--viewport", "wide"],
         "Invalid '--viewport <WxH>': 'wide' (for example 430x932, each 1 to 8192)", "render"),
        (["journey", "captures", "--cache", "/nonexistent/cache", "--deliver", "ftp://127.0.0.1/events", "--key", "k"],
         "Invalid '--deliver <url>': 'ftp://127.0.0.1/events' is not an http or https URL", "journey captures"),
        (["journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--cache", "/nonexistent/cache", "--on-removed", "archive"],
         "Invalid '--on-removed <policy>': 'archive' (use discard or keep)", "journey prepare"),
        (["journey", "present", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--cache", "/nonexistent/cache", "--startup", "eager"],
         "Invalid '--startup <policy>': 'eager' (use ask-origin-first, cache-first or require-authorisation)", "journey present"),
    ])
    func aRefusedValueIsAUsageError(_ arguments: [String], _ message: String, _ command: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "Error: " + message, "\(result.stderr)")
        #expect(lines.last == "  See 'larder \(command) --help' for more information.", "\(result.stderr)")
        #expect(result.stdout.isEmpty)

        let json = try CLI.run(arguments + ["--json"])
        #expect(json.status == 64)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == "usage" && error["message"] as? String == message, "\(json.stdout)")
    }
}
