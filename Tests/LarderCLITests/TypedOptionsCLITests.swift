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
        (["cache", "evict", "--to", "5XB", "--cache", "/nonexistent/cache"], "'5XB' is not a size (try 500MB or 2GiB)", "cache evict"),
        (["cache", "evict", "--cache", "/nonexistent/cache"], "Missing '--to <size>'", "cache evict"),
        (["journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--deadline", "soon", "--cache", "/nonexistent/cache"],
         "Invalid '--deadline <duration>': 'soon' (use e.g. 5s, 1500ms, 2min)", "journey prepare"),
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
