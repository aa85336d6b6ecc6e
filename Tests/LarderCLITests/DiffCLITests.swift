import Foundation
import LarderTestSupport
import Testing

/// `larder diff`: files by path, and the bytes a device holding the old bundle downloads,
/// the same from archives, an origin folder and a cache.
@Suite struct DiffCLITests {
    /// Two releases of one flow: a stylesheet changed (it compresses), a script added, an
    /// image (already compressed: travels as it is) added, a text file removed, a font
    /// unchanged, and a copy of an old file under a new name (an object the device has).
    final class Releases {
        let scratch: Scratch
        let old: String
        let new: String
        let oldDigest: String
        let newDigest: String
        static let css = String(repeating: ".button { color: #333; padding: 4px 8px; }\n", count: 200)

        init() throws {
            scratch = try Scratch()
            let base: [String: String] = [
                "index.html": "<link rel=stylesheet href=app.css><script src=app.js></script>",
                "app.css": Self.css, "app.js": "start()", "notes.txt": "old notes", "font.woff2": "WOFF2",
            ]
            try PackPipelineTests.write(base, under: scratch.path + "/v1")
            var next = base
            next["app.css"] = Self.css + ".new { margin: 0 }\n"
            next["index.html"] = "<link rel=stylesheet href=app.css><script src=app.js></script><script src=extra.js></script><img src=hero.png>"
            next["extra.js"] = "extra()"
            next["hero.png"] = String(repeating: "P", count: 600)
            next["copy.js"] = "start()"
            next["notes.txt"] = nil
            try PackPipelineTests.write(next, under: scratch.path + "/v2")
            let first = try PackPipelineTests.object(try CLI.run(["pack", scratch.path + "/v1", "-o", scratch.path + "/out", "--json"]).stdout)
            let second = try PackPipelineTests.object(try CLI.run(["pack", scratch.path + "/v2", "-o", scratch.path + "/out", "--json"]).stdout)
            old = try #require(first["archivePath"] as? String)
            new = try #require(second["archivePath"] as? String)
            oldDigest = try #require(first["bundleDigest"] as? String)
            newDigest = try #require(second["bundleDigest"] as? String)
        }
    }

    @Test func listsFilesAndTheBytesADeviceDownloads() throws {
        let releases = try Releases()
        let result = try CLI.run(["diff", releases.old, releases.new, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let diff = try PackPipelineTests.object(result.stdout)
        #expect(diff["old"] as? String == releases.oldDigest)
        #expect(diff["new"] as? String == releases.newDigest)
        #expect((diff["added"] as? [[String: Any]])?.map { $0["path"] as? String } == ["copy.js", "extra.js", "hero.png"])
        #expect((diff["removed"] as? [[String: Any]])?.map { $0["path"] as? String } == ["notes.txt"])
        #expect((diff["changed"] as? [[String: Any]])?.map { $0["path"] as? String } == ["app.css", "index.html"])
        let download = try #require(diff["download"] as? [String: Any])
        // app.css, index.html, extra.js, hero.png: copy.js is app.js's object, the font is unchanged.
        #expect(download["objects"] as? Int == 4)
        let css = Releases.css.utf8.count + ".new { margin: 0 }\n".utf8.count
        let byRole = try #require(diff["byRole"] as? [String: [String: Any]])
        #expect(byRole["style"]?["size"] as? Int == css)
        let cssWire = try #require(byRole["style"]?["transfer"] as? Int)
        #expect(cssWire > 0 && cssWire < css / 10, "a repetitive stylesheet travels gzip-compressed")
        #expect(byRole["image"]?["transfer"] as? Int == 600, "a PNG has no gzip copy")
        #expect(byRole["script"]?["transfer"] as? Int == 7, "too small for a gzip copy")
        #expect(byRole["font"] == nil)
        let manifestSize = try #require(diff["manifestSize"] as? Int)
        #expect(download["total"] as? Int == (download["transfer"] as? Int ?? 0) + manifestSize)

        let text = try CLI.run(["diff", releases.old, releases.new])
        #expect(text.stdout.contains("  files  2 changed, 3 added, 1 removed\n"))
        #expect(text.stdout.contains("  removed  notes.txt\n"))
        #expect(text.stdout.contains("4 objects"))
    }

    /// With patches, a changed script travels as a patch against the old one; a stylesheet
    /// whose gzip copy is smaller than a patch and its index entry travels whole.
    @Test func showsWhatADeviceMovesWithPatches() throws {
        let scratch = try Scratch()
        let script = (0..<1_500).map { "  queue.push(step\($0 % 97), callback\($0 % 13), \"label \($0)\");" }.joined(separator: "\n")
        var files = ["index.html": "<link rel=stylesheet href=app.css><script src=app.js></script>", "app.css": Releases.css, "app.js": script]
        try PackPipelineTests.write(files, under: scratch.path + "/v1")
        files["app.js"] = script + "\n// one line more"
        files["app.css"] = Releases.css + ".new { margin: 0 }\n"
        try PackPipelineTests.write(files, under: scratch.path + "/v2")
        let old = try #require(try PackPipelineTests.object(try CLI.run(["pack", scratch.path + "/v1", "-o", scratch.path + "/out", "--json"]).stdout)["archivePath"] as? String)
        let new = try #require(try PackPipelineTests.object(try CLI.run(["pack", scratch.path + "/v2", "-o", scratch.path + "/out", "--json"]).stdout)["archivePath"] as? String)
        let diff = try PackPipelineTests.object(try CLI.run(["diff", old, new, "--json"]).stdout)
        let download = try #require(diff["download"] as? [String: Any])
        let patched = try #require(diff["withPatches"] as? [String: Any])
        let patches = try #require(patched["patched"] as? [String: Any])
        let whole = try #require(patched["whole"] as? [String: Any])
        let scriptWire = try #require((diff["byRole"] as? [String: [String: Any]])?["script"]?["transfer"] as? Int)
        #expect(patches["objects"] as? Int == 1 && whole["objects"] as? Int == 1, "\(patched)")
        #expect((patches["transfer"] as? Int ?? .max) * 20 < scriptWire, "\(patched)")
        let indexSize = try #require(patched["indexSize"] as? Int)
        #expect(indexSize > 0)
        let total = try #require(patched["total"] as? Int)
        #expect(total == (diff["manifestSize"] as? Int ?? 0) + indexSize + (patches["transfer"] as? Int ?? 0) + (whole["transfer"] as? Int ?? 0))
        #expect(total * 4 < download["total"] as? Int ?? 0, "\(total) with patches, \(download) without")
        let text = try CLI.run(["diff", old, new])
        #expect(text.stdout.contains("With patches "), "\(text.stdout)")
        #expect(text.stdout.contains(": 1 object from patches"), "\(text.stdout)")
    }

    /// The origin's own gzip copies and a cache's objects give the same figures as archives.
    @Test func originAndCacheAgreeWithArchives() throws {
        let releases = try Releases()
        let origin = releases.scratch.path + "/origin"
        let cache = releases.scratch.path + "/cache"
        #expect(try CLI.run(["publish", releases.old, releases.new, "--origin", origin]).status == 0)
        #expect(try CLI.run(["cache", "install", releases.old, "--cache", cache]).status == 0)
        #expect(try CLI.run(["cache", "install", releases.new, "--cache", cache]).status == 0)
        let fromArchives = try CLI.run(["diff", releases.old, releases.new, "--json"])
        let fromOrigin = try CLI.run(["diff", releases.oldDigest, releases.newDigest, "--origin", origin, "--json"])
        let fromCache = try CLI.run(["diff", releases.oldDigest, String(releases.newDigest.dropFirst(7).prefix(10)), "--cache", cache, "--json"])
        #expect(fromOrigin.status == 0, "\(fromOrigin.stderr)")
        #expect(fromCache.status == 0, "\(fromCache.stderr)")
        #expect(fromOrigin.stdout == fromArchives.stdout)
        #expect(fromCache.stdout == fromArchives.stdout)
    }

    @Test func badOperands() throws {
        let releases = try Releases()
        let scratch = releases.scratch.path
        try Data("not an archive".utf8).write(to: URL(fileURLWithPath: scratch + "/junk.tar.gz"))
        let cases: [([String], Int32, String)] = [
            (["diff", releases.old], 64, "Error: Missing expected argument '<new>'"),
            (["diff", releases.old, scratch + "/none.tar.gz"], 66, "Error: \(scratch)/none.tar.gz: no such archive"),
            (["diff", releases.old, scratch + "/junk.tar.gz"], 65, "Error: \(scratch)/junk.tar.gz: "),
            (["diff", "a", "b", "--origin", scratch, "--cache", scratch], 64, "Error: --cache and --origin cannot be used together"),
            (["diff", "sha256:12", releases.newDigest, "--origin", scratch], 64, "Error: 'sha256:12' is not a bundle digest"),
            (["diff", releases.oldDigest, releases.newDigest, "--origin", scratch + "/empty"], 66, "Error: \(scratch)/empty/bundles/"),
        ]
        for (arguments, status, message) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
        }
    }
}
