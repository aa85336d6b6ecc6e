import Foundation
import LarderTestSupport
import Testing

/// Messages for people, plain: the file and the place named once, no Foundation error domains,
/// each command's exit status as its help says.
@Suite struct MessagesCLITests {
    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// `larder.json` said "malformed JSON at byte 11: unexpected character (malformed JSON at
    /// byte 11: unexpected character)".
    @Test func aMalformedConfigurationNamesItsLineAndColumnOnce() throws {
        let scratch = try Scratch()
        try Self.write("<p>", to: scratch.path + "/src/index.html")
        try Self.write("{\n  \"name\": x}", to: scratch.path + "/src/larder.json")
        let result = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out"])
        #expect(result.status == 65)
        #expect(result.stderr == "Error: larder.json:2:11: malformed JSON: unexpected character\n")
        let json = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out", "--json"])
        #expect(json.stdout.contains(#""location":"larder.json:2:11","message":"malformed JSON: unexpected character""#), "\(json.stdout)")
    }

    /// Under `--json` a failure of render, journey history or journey captures is one object
    /// on stdout with the error's own code (not only its exit status's name).
    @Test func failuresUnderJSONCarryTheErrorsCode() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path + "/cache", withIntermediateDirectories: true)
        let cases: [([String], String, Int32)] = [
            (["render", "onboarding", "--cache", scratch.path + "/cache", "--screenshot", scratch.path + "/x.png", "--json"], "bundle-not-found", 66),
            (["journey", "history", "--origin", scratch.path, "--journey", "j", "--json"], "journey-not-published", 66),
        ]
        for (arguments, code, status) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == status, "\(arguments): \(result)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(arguments)")
            #expect((object["error"] as? [String: Any])?["code"] as? String == code, "\(arguments): \(result.stdout)")
            #expect(object["status"] as? Int == Int(status))
        }
    }

    /// A journey id or key an origin cannot serve is the command line's fault (64), chosen by
    /// the error's code, not its words; nothing is written.
    @Test(arguments: [["--journey", "../x"], ["--journey", "j", "--key", "a b"]])
    func anIdentifierTheOriginCannotServeIsAUsageError(_ options: [String]) throws {
        let scratch = try Scratch()
        try Self.write("<p>", to: scratch.path + "/src/index.html")
        let pack = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out", "--json"])
        let archive = try #require((try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])?["archivePath"] as? String)
        let publish = try CLI.run(["publish", archive, "--origin", scratch.path + "/origin"] + options)
        #expect(publish.status == 64, "\(publish)")
        #expect(publish.stderr.contains("may use only letters, digits"), "\(publish.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/origin/journeys"))
    }

    /// `publish` over a damaged journey document said only "malformed JSON at byte 0 (malformed
    /// JSON at byte 0 …)", and `journey history` did not say which file either.
    @Test func aDamagedOriginFileIsNamed() throws {
        let scratch = try Scratch()
        try Self.write("<p>", to: scratch.path + "/src/index.html")
        let pack = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out", "--json"])
        let archive = try #require((try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])?["archivePath"] as? String)
        let origin = scratch.path + "/origin"
        #expect(try CLI.run(["publish", archive, "--origin", origin, "--journey", "j"]).status == 0)
        try Self.write("garbage", to: origin + "/journeys/j.json")
        let publish = try CLI.run(["publish", archive, "--origin", origin, "--journey", "j"])
        #expect(publish.status == 65)
        #expect(publish.stderr == "Error: \(origin)/journeys/j.json: byte 0: malformed JSON: unexpected character\n")
        try Self.write("[", to: origin + "/journeys/j.history.json")
        let history = try CLI.run(["journey", "history", "--origin", origin, "--journey", "j"])
        #expect(history.status == 65)
        #expect(history.stderr == "Error: \(origin)/journeys/j.history.json: byte 1: malformed JSON: unexpected end of input\n")
    }

    /// `-o` under a file said "The operation could not be completed. (NSCocoaErrorDomain error
    /// 512.)"; it is a typed error naming the file in the way, exit 73, for every command that
    /// makes an output folder.
    @Test func anOutputPathUnderAFileSaysSo() throws {
        let scratch = try Scratch()
        try Self.write("<p>", to: scratch.path + "/src/index.html")
        try Self.write("a file", to: scratch.path + "/file")
        let pack = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/file/out"])
        #expect(pack.status == 73)
        #expect(pack.stderr == "Error: \(scratch.path)/file/out: the output path is under a file: \(scratch.path)/file is not a folder\n")
        let packed = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out", "--json"])
        let archive = try #require((try JSONSerialization.jsonObject(with: Data(packed.stdout.utf8)) as? [String: Any])?["archivePath"] as? String)
        let publish = try CLI.run(["publish", archive, "--origin", scratch.path + "/file/origin"])
        #expect(publish.status == 73)
        #expect(publish.stderr == "Error: \(scratch.path)/file/origin: the origin folder is under a file: \(scratch.path)/file is not a folder\n")
        let keys = try CLI.run(["keys", "generate", "k", "--out", scratch.path + "/file/keys"])
        #expect(keys.status == 73)
        #expect(keys.stderr == "Error: the key folder is under a file: \(scratch.path)/file is not a folder\n")
        for result in [pack, publish, keys] { #expect(!result.stderr.contains("NSCocoaErrorDomain")) }
    }

    /// An archive that is a folder: each reader says so once and exits 66 (cannot be opened),
    /// as their help says; `cache install` said 65 and named the file twice, `publish` 73.
    @Test(arguments: [
        ["inspect", "%@"], ["verify", "%@"], ["diff", "%@", "%@"], ["cache", "install", "%@", "--cache", "%c"],
        ["publish", "%@", "--origin", "%o"],
    ])
    func anArchiveThatIsAFolderIsNamedOnce(_ template: [String]) throws {
        let scratch = try Scratch()
        let folder = scratch.path + "/folder.tar.gz"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let arguments = template.map {
            $0.replacingOccurrences(of: "%@", with: folder).replacingOccurrences(of: "%c", with: scratch.path + "/cache")
                .replacingOccurrences(of: "%o", with: scratch.path + "/origin")
        }
        let result = try CLI.run(arguments)
        #expect(result.status == 66, "\(arguments[0]): \(result.stderr)")
        #expect(result.stderr == "Error: \(folder): not a regular file (a folder)\n", "\(arguments[0])")
    }

    /// A missing file: the reason once ("No such file or directory (No such file or
    /// directory)" before).
    @Test func aMissingArchiveGivesItsReasonOnce() throws {
        let result = try CLI.run(["inspect", "/nonexistent/a.tar.gz"])
        #expect(result.status == 66)
        #expect(result.stderr == "Error: /nonexistent/a.tar.gz: cannot open for reading: No such file or directory\n")
    }

    /// Garbage where an archive should be: the file once (`diff` said it twice, `cache install`
    /// not at all).
    @Test(arguments: [["inspect", "%@"], ["diff", "%@", "%@"], ["cache", "install", "%@", "--cache", "%c"]])
    func garbageIsNamedOnce(_ template: [String]) throws {
        let scratch = try Scratch()
        let garbage = scratch.path + "/garbage.tar.gz"
        try Self.write("not an archive", to: garbage)
        let arguments = template.map { $0.replacingOccurrences(of: "%@", with: garbage).replacingOccurrences(of: "%c", with: scratch.path + "/cache") }
        let result = try CLI.run(arguments)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: garbage).count == 2, "\(arguments[0]): \(result.stderr)")
    }

    /// `journey` with a cache it cannot make (under a file): no such cache folder (66, as for
    /// `cache`; it exited 1), the folder named once.
    @Test func aCacheThatCannotBeMadeIsNamedOnce() throws {
        let scratch = try Scratch()
        try Self.write("a file", to: scratch.path + "/file")
        let result = try CLI.run([
            "journey", "prepare", "--origin", "http://127.0.0.1:9/", "--key", "k", "--journey", "j", "--cache", scratch.path + "/file/cache",
        ])
        #expect(result.stderr.components(separatedBy: scratch.path + "/file/cache").count == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: cannot open the cache: "), "\(result.stderr)")
        #expect(result.status == 66, "\(result.stderr)")
    }
}
