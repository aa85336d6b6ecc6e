import Foundation
import LarderTestSupport
import Testing

@Suite struct CacheCLITests {
    /// Packs the samples and installs them into a fresh cache; returns (scratch, cache, digests by name).
    func installedSamples() throws -> (Scratch, String, [String: String]) {
        let scratch = try Scratch()
        let cache = scratch.path + "/cache"
        var digests: [String: String] = [:]
        for name in ["onboarding", "paywall", "legacy-prompt"] {
            let pack = try CLI.run(["pack", sampleBundles + "/" + name, "-o", scratch.path + "/out", "--json"])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])
            let archive = try #require(report["archivePath"] as? String)
            let install = try CLI.run(["cache", "install", archive, "--cache", cache])
            #expect(install.status == 0, "\(install.stderr)")
            #expect(install.stdout.hasPrefix("Installed \(name) "))
            digests[name] = report["bundleDigest"] as? String
        }
        return (scratch, cache, digests)
    }

    @Test func listsShowsResolvesAndVerifies() throws {
        let (scratch, cache, digests) = try installedSamples()
        _ = scratch
        let ls = try CLI.run(["cache", "ls", "--cache", cache])
        #expect(ls.status == 0)
        let lines = ls.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("BUNDLE        NAME") == true)
        #expect(lines.count == 5)  // the header, three bundles, the legend of the byte columns
        let json = try CLI.run(["cache", "ls", "--cache", cache, "--json"])
        let bundles = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(Set(bundles.compactMap { $0["name"] as? String }) == ["onboarding", "paywall", "legacy-prompt"])

        let show = try CLI.run(["cache", "show", "paywall", "--cache", cache])
        #expect(show.status == 0)
        #expect(show.stdout.contains("Digest   \(digests["paywall"]!)"))
        #expect(show.stdout.contains("fonts/Lato-Regular.latin.woff2"))
        let byPrefix = try CLI.run(["cache", "show", String(digests["onboarding"]!.dropFirst(7).prefix(8)), "--cache", cache, "--json"])
        #expect(byPrefix.status == 0)
        #expect(byPrefix.stdout.contains(#""name":"onboarding""#))

        // The font onboarding and paywall share is stored once and resolves by URL.
        let inspect = try CLI.run(["cache", "show", "onboarding", "--cache", cache, "--json"])
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any])
        let files = try #require((shown["manifest"] as? [String: Any])?["files"] as? [[String: Any]])
        let lato = try #require(files.first { $0["path"] as? String == "fonts/Lato-Regular.latin.woff2" }?["digest"] as? String)
        let resolve = try CLI.run(["cache", "resolve", "larder-font://sha256/" + lato.dropFirst(7), "--cache", cache])
        #expect(resolve.status == 0, "\(resolve.stderr)")
        #expect(resolve.stdout.hasPrefix("\(lato)  font/woff2  "))

        let verify = try CLI.run(["cache", "verify", "--cache", cache])
        #expect(verify.status == 0)
        #expect(verify.stdout.hasPrefix("OK: "))
        let stats = try CLI.run(["cache", "stats", "--cache", cache, "--json"])
        let counters = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        #expect(counters["bundles"] as? Int == 3)
    }

    @Test func verifyReportsAndRepairsCorruption() throws {
        let (scratch, cache, digests) = try installedSamples()
        _ = scratch
        let object = try #require(FileManager.default.enumerator(atPath: cache + "/objects")?.allObjects.compactMap { $0 as? String }
            .first { $0.count == 65 })
        let path = cache + "/objects/" + object
        try CLI.shell("chmod u+w '\(path)' && printf 'X' | dd of='\(path)' bs=1 seek=10 conv=notrunc 2>/dev/null")
        let check = try CLI.run(["cache", "verify", "--cache", cache])
        #expect(check.status == 65)
        #expect(check.stderr.contains("corrupt: sha256:\(object.replacingOccurrences(of: "/", with: ""))"))
        #expect(check.stderr.contains("refetch: sha256:"))
        let repair = try CLI.run(["cache", "verify", "--repair", "--cache", cache, "--json"])
        #expect(repair.status == 65)
        #expect(repair.stdout.contains(#""repaired":true"#))
        // Afterwards verify and ls agree: the bundles that lost the object are incomplete.
        let after = try CLI.run(["cache", "verify", "--cache", cache, "--json"])
        #expect(after.status == 65)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        #expect((report["corrupt"] as? [String])?.isEmpty == true)
        let incomplete = try #require(report["incomplete"] as? [String])
        #expect(!incomplete.isEmpty)
        let ls = try CLI.run(["cache", "ls", "--cache", cache, "--json"])
        let bundles = try #require(try JSONSerialization.jsonObject(with: Data(ls.stdout.utf8)) as? [[String: Any]])
        let flagged = bundles.filter { $0["complete"] as? Bool == false }.compactMap { $0["digest"] as? String }
        #expect(flagged.sorted() == incomplete)
        #expect(Set(incomplete).isSubset(of: Set(digests.values)))
        let text = try CLI.run(["cache", "verify", "--cache", cache])
        #expect(text.stderr.hasSuffix("FAILED: \(incomplete.count) bundle\(incomplete.count == 1 ? " is" : "s are") incomplete; refetch the bundles listed\n"))
    }

    @Test func pinsEvictsSweepsAndPurges() throws {
        let (scratch, cache, _) = try installedSamples()
        _ = scratch
        #expect(try CLI.run(["cache", "pin", "paywall", "--cache", cache]).status == 0)
        let evict = try CLI.run(["cache", "evict", "--to", "0", "--cache", cache, "--json"])
        #expect(evict.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(evict.stdout.utf8)) as? [String: Any])
        #expect((report["evicted"] as? [String])?.count == 2)
        let ls = try CLI.run(["cache", "ls", "--cache", cache])
        #expect(ls.stdout.contains("paywall"))
        #expect(ls.stdout.contains("pinned"))
        #expect(!ls.stdout.contains("onboarding"))
        let gc = try CLI.run(["cache", "gc", "--dry-run", "--cache", cache])
        #expect(gc.status == 0)
        #expect(gc.stdout.hasPrefix("gc would remove 0 files no bundle uses (0 B)"))
        #expect(try CLI.run(["cache", "unpin", "paywall", "--cache", cache]).status == 0)
        let purge = try CLI.run(["cache", "purge", "--cache", cache])
        #expect(purge.status == 0)
        #expect(try CLI.run(["cache", "ls", "--cache", cache]).stdout.contains("is empty"))
    }

    /// The inspecting subcommands open the cache read-only: an empty cache folder reads as
    /// empty and gets nothing created in it; a cache folder that is not there is an error (66,
    /// `MissingCacheCLITests`), not an empty cache, and is not created.
    @Test func inspectingAMissingCacheCreatesNothing() throws {
        let scratch = try Scratch()
        let cache = scratch.path + "/cache"
        let missing = try CLI.run(["cache", "ls", "--cache", cache])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cache))
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: false)
        let ls = try CLI.run(["cache", "ls", "--cache", cache])
        #expect(ls.status == 0, "\(ls.stderr)")
        #expect(ls.stdout == "The cache at \(cache) is empty.\n")
        let stats = try CLI.run(["cache", "stats", "--json", "--cache", cache])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains(#""bundles":0"#))
        let verify = try CLI.run(["cache", "verify", "--cache", cache])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout == "OK: 0 objects, 0 B verified\n")
        #expect(try CLI.run(["cache", "show", "paywall", "--cache", cache]).status == 66)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).isEmpty)
        let file = scratch.path + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let notAFolder = try CLI.run(["cache", "ls", "--cache", file])
        #expect(notAFolder.status == 66)
        #expect(notAFolder.stderr == "Error: \(file): this is not a folder, so not a cache; nothing was changed\n")
    }

    static let exitCases: [(String, Int32)] = [
        ("cache", 64),
        ("cache frobnicate", 64),
        ("cache evict", 64),
        ("cache evict --to banana", 64),
        ("cache evict --to 10000000000000000000", 64),
        ("cache evict --to 99999999TiB", 64),
        ("cache show", 64),
        ("cache show nothing-like-this", 66),
        ("cache install /nonexistent.tar.gz", 66),
        ("cache resolve larder-font://sha256/../../etc/passwd", 65),
        ("cache resolve larder-font://sha256/" + String(repeating: "a", count: 64), 66),
        ("cache fetch " + String(repeating: "a", count: 64) + " --origin http://127.0.0.1:9/ --deadline soon", 64),
        ("cache fetch " + String(repeating: "a", count: 64) + " --origin http://127.0.0.1:9/ --deadline 0s", 64),
        ("cache fetch " + String(repeating: "a", count: 64) + " --origin http://127.0.0.1:9/ --timeout -1", 64),
        ("cache fetch " + String(repeating: "a", count: 64) + " --origin http://127.0.0.1:9/ --timeout 5parsecs", 64),
        // Nothing listens on port 9 of the loopback: refused at once, a temporary failure.
        ("cache fetch " + String(repeating: "a", count: 64) + " --origin http://127.0.0.1:9/ --deadline 2s", 75),
    ]

    @Test(arguments: exitCases)
    func exitCodesScriptsCanRelyOn(_ command: String, _ status: Int32) throws {
        let scratch = try Scratch()
        let arguments = command.split(separator: " ").map(String.init)
        let result = try CLI.run(arguments + ["--cache", scratch.path + "/cache"])
        #expect(result.status == status, "\(result.stderr)")
    }

    /// Output that cannot be written ends the command with a message and exit 74 (EX_IOERR),
    /// never a trap: a full device, and a reader that went away.
    @Test func anUnwritableOutputIsExit74() throws {
        let (scratch, cache, _) = try installedSamples()
        let full = try CLI.run(["cache", "ls", "--cache", cache, "--json"], stdout: "/dev/full")
        #expect(full.status == 74)
        #expect(full.stderr.hasPrefix("Error: cannot write the output: No space left on device"), "\(full.stderr)")
        // The reader closes its end before larder starts writing.
        let status = scratch.path + "/status"
        try CLI.shell("(sleep 0.3; '\(CLI.executable)' cache ls --cache '\(cache)' 2>/dev/null; echo $? > '\(status)') | (exec 0<&-; sleep 1)")
        #expect(try String(contentsOfFile: status, encoding: .utf8) == "74\n")
    }

    @Test func refusesAHostileArchiveWithExit65() throws {
        let scratch = try Scratch()
        let pack = try CLI.run(["pack", sampleBundles + "/paywall", "-o", scratch.path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(pack.stdout.utf8)) as? [String: Any])
        let archive = try #require(report["archivePath"] as? String)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        let cut = scratch.path + "/cut.tar.gz"
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let result = try CLI.run(["cache", "install", cut, "--cache", scratch.path + "/cache"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("refused"))
        #expect(try CLI.run(["cache", "ls", "--cache", scratch.path + "/cache"]).stdout.contains("is empty"))
    }
}
