import Foundation
import LarderTestSupport
import Testing

/// A cache folder that is not there is an error for every command that reads a cache (exit 66,
/// naming the folder and what to do), never an empty cache; and it is never created, but by
/// the commands that fill a cache. With `--json`, the failure is one JSON object on stdout.
@Suite struct MissingCacheCLITests {
    static let scope = ["--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "onboarding"]
    static let digest = String(repeating: "a", count: 64)

    static let readers: [[String]] = [
        ["cache", "ls"], ["cache", "show", "paywall"], ["cache", "verify"], ["cache", "verify", "--repair"], ["cache", "stats"],
        ["cache", "gc"], ["cache", "gc", "--dry-run"], ["cache", "evict", "--to", "1MB"], ["cache", "pin", "paywall"],
        ["cache", "unpin", "paywall"], ["cache", "purge"], ["cache", "resolve", "larder-font://sha256/" + digest],
        ["journey", "status"] + scope, ["journey", "logout"] + scope, ["journey", "captures"],
        ["diff", digest, digest],
    ]

    @Test(arguments: readers)
    func aMissingCacheIsExit66AndStaysMissing(_ command: [String]) throws {
        let scratch = try Scratch()
        let cache = scratch.path + "/typo"
        let result = try CLI.run(command + ["--cache", cache])
        #expect(result.status == 66, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("\(cache): no such cache folder (nothing was created); check the --cache path"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cache))
        let json = try CLI.run(command + ["--cache", cache, "--json"])
        #expect(json.status == 66)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json)")
        #expect(object["status"] as? Int == 66)
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == "cache-not-found")
        #expect((error["message"] as? String)?.contains("no such cache folder") == true)
        #expect(json.stdout.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: cache))
    }

    /// The exact text, once.
    @Test func theMessageNamesTheFolderAndWhatToDo() throws {
        let scratch = try Scratch()
        let result = try CLI.run(["cache", "ls", "--cache", scratch.path + "/typo"])
        #expect(result.stderr == """
            Error: \(scratch.path)/typo: no such cache folder (nothing was created); check the --cache path, or make a cache there \
            with 'larder cache install <archive>' or 'larder cache fetch'

            """)
    }

    /// The commands that fill a cache make its folder.
    @Test func installAndPrepareCreateTheCache() throws {
        let scratch = try Scratch()
        let pack = try CLI.run(["pack", sampleBundles + "/paywall", "-o", scratch.path + "/out", "--json"])
        let archive = try #require((try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])?["archivePath"] as? String)
        #expect(try CLI.run(["cache", "install", archive, "--cache", scratch.path + "/installed"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/installed/index.sqlite"))
        let prepare = try CLI.run(["journey", "prepare", "--offline"] + Self.scope + ["--cache", scratch.path + "/prepared"])
        #expect(prepare.status == 69)
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/prepared/host"))
    }

    /// A `cache fetch` whose command line is refused (usage, 64) makes no cache folder: the
    /// arguments are checked before the cache is opened.
    @Test(arguments: [
        ["cache", "fetch", digest],
        ["cache", "fetch", digest, "--origin", "ftp://127.0.0.1/"],
        ["cache", "fetch", "not-a-digest", "--origin", "http://127.0.0.1:9/"],
        ["cache", "fetch", digest, "--origin", "http://127.0.0.1:9/", "--deadline", "soon"],
        ["cache", "fetch", digest, "--origin", "http://127.0.0.1:9/", "--timeout", "-1s"],
    ])
    func aRefusedFetchMakesNoCacheFolder(_ command: [String]) throws {
        let scratch = try Scratch()
        let cache = scratch.path + "/typo"
        let result = try CLI.run(command + ["--cache", cache])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("Error: "), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cache), "\(command) made \(cache)")
    }

    /// Failures under `--json` that printed nothing on stdout: one object with the error's code.
    @Test(arguments: [
        (["inspect", "/nonexistent.tar.gz", "--json"], 66, "io"),
        (["verify", "/nonexistent.tar.gz", "--json"], 66, "io"),
        (["inspect", "--json"], 64, "usage"),
        (["cache", "install", "/nonexistent.tar.gz", "--json"], 66, "no-input"),
        (["cache", "fetch", digest, "--origin", "http://127.0.0.1:9/", "--deadline", "2s", "--json"], 75, "connection"),
        (["cache", "fetch", digest, "--json"], 64, "usage"),
        (["diff", "/nonexistent.tar.gz", "/nonexistent.tar.gz", "--json"], 66, "no-input"),
        // Through the net every command passes: the code its exit status names.
        (["frobnicate", "--json"], 64, "usage"),
        (["journey", "status", "--json"], 64, "usage"),
        (["keys", "list", "--origin", "/nonexistent", "--json"], 66, "no-input"),
        (["render", "/nonexistent.tar.gz", "--screenshot", "/nonexistent/x.png", "--json"], 66, "no-input"),
    ] as [([String], Int, String)])
    func aFailureUnderJSONIsOneObjectOnStdout(_ command: [String], _ status: Int, _ code: String) throws {
        let scratch = try Scratch()
        let result = try CLI.run(command + (command[0] == "cache" ? ["--cache", scratch.path + "/cache"] : []))
        #expect(Int(result.status) == status, "\(result)")
        #expect(result.stdout.split(separator: "\n").count == 1, "\(result.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        #expect(object["status"] as? Int == status)
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == code)
        #expect((error["message"] as? String)?.isEmpty == false)
        #expect(!result.stderr.isEmpty)
    }
}
