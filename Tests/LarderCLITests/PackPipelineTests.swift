import Foundation
import LarderTestSupport
import Testing

/// `larder pack` in build pipelines: readable warnings, several folders in one run, `--expect`.
@Suite struct PackPipelineTests {
    static func write(_ files: [String: String], under root: String) throws {
        for (path, text) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static let noisy: [String: String] = [
        "index.html": """
            <script src="https://cdn.example.com/a.js"></script>
            <a href="https://example.com/docs">docs</a><a href="https://example.com/more">more</a>
            <img src="https://cdn.example.com/b.png">
            """,
        "extra/1.txt": "", "extra/2.txt": "", "extra/3.txt": "", "extra/4.txt": "", "extra/5.txt": "", "extra/6.txt": "",
        "extra/7.txt": "",
    ]

    @Test func warningsAreGroupedByKindWithACountAndTheFirstPlaces() throws {
        let scratch = try Scratch()
        try Self.write(Self.noisy, under: scratch.path + "/src")
        let result = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr == """
                warning: 2 remote references loaded from the network, not from the bundle (an error with --strict):
                  index.html:1:14: https://cdn.example.com/a.js
                  index.html:3:11: https://cdn.example.com/b.png
                warning: 7 unreferenced files, packed but nothing the entry loads refers to them (list files loaded by script under "include" in larder.json, or leave them out with "exclude"):
                  extra/1.txt
                  extra/2.txt
                  extra/3.txt
                  extra/4.txt
                  extra/5.txt
                  … and 2 more (--verbose lists all)

                """)
        let verbose = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out", "--verbose"])
        #expect(verbose.stderr.contains("  extra/7.txt\n"))
        #expect(!verbose.stderr.contains("more (--verbose"))

        let json = try CLI.run(["pack", scratch.path + "/src", "-o", scratch.path + "/out", "--json"])
        let report = try Self.object(json.stdout)
        let warnings = try #require(report["warnings"] as? [[String: Any]])
        #expect(warnings.map { $0["kind"] as? String } == Array(repeating: "remote-reference", count: 2) + Array(repeating: "unreferenced", count: 7))
        #expect(warnings.first?["url"] as? String == "https://cdn.example.com/a.js")
        #expect(warnings.first?["location"] as? String == "index.html:1:14")
        #expect(warnings.last?["path"] as? String == "extra/7.txt")
        #expect(report["status"] as? Int == 0)
    }

    @Test func packsSeveralFoldersWithOneSummaryAndTheMostSeriousStatus() throws {
        let scratch = try Scratch()
        try Self.write(["index.html": "<p>one</p>"], under: scratch.path + "/one")
        try Self.write(["index.html": "<p>two</p>", "larder.json": #"{"name": "second"}"#], under: scratch.path + "/two")
        try Self.write(["index.html": "<img src=gone.png>"], under: scratch.path + "/broken")
        let sources = ["one", "two", "broken"].map { scratch.path + "/" + $0 }
        let result = try CLI.run(["pack"] + sources + ["-o", scratch.path + "/out"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("Error: \(sources[2]): index.html:1:10: 'gone.png' refers to 'gone.png'"))
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(result.stdout)")
        #expect(lines.first?.hasPrefix("SOURCE") == true)
        #expect(lines[1].hasPrefix(sources[0]) && lines[1].contains("packed"))
        #expect(lines[3].hasPrefix(sources[2]) && lines[3].contains("failed (1 error)"))
        #expect(lines.last == "2 of 3 packed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/out").count == 2)

        let json = try CLI.run(["pack"] + sources + ["-o", scratch.path + "/out", "--json"])
        #expect(json.status == 65)
        let report = try Self.object(json.stdout)
        #expect(report["status"] as? Int == 65)
        let bundles = try #require(report["bundles"] as? [[String: Any]])
        #expect(bundles.map { $0["status"] as? Int } == [0, 0, 65])
        #expect(bundles.map { $0["source"] as? String } == sources)
        #expect(bundles[1]["name"] as? String == "second")
        let errors = try #require(bundles[2]["errors"] as? [[String: Any]])
        #expect(errors.first?["code"] as? String == "missing-reference")
        #expect(errors.first?["location"] as? String == "index.html:1:10")

        // A missing folder outranks a broken one.
        let missing = try CLI.run(["pack", sources[2], scratch.path + "/nowhere", "-o", scratch.path + "/out"])
        #expect(missing.status == 66)
    }

    /// A reference the renderers would refuse is a data error (65) at its line and column, not
    /// decoded leniently: the file named '100%.png' is there, but no engine could ask for it.
    @Test func aMalformedReferenceIsADataErrorAtItsPlace() throws {
        let scratch = try Scratch()
        let source = scratch.path + "/src"
        try Self.write(["index.html": "<p>\n<img src=\"100%.png\">", "100%.png": "png"], under: source)
        let result = try CLI.run(["pack", source, "-o", scratch.path + "/out", "--json"])
        #expect(result.status == 65)
        let errors = try #require(try Self.object(result.stdout)["errors"] as? [[String: Any]])
        #expect(errors.first?["code"] as? String == "malformed-reference")
        #expect(errors.first?["location"] as? String == "index.html:2:11")
    }

    @Test func expectFailsOnAnotherDigestAndNamesTheFilesThatDiffer() throws {
        let scratch = try Scratch()
        let source = scratch.path + "/src"
        try Self.write(
            ["index.html": "<link rel=stylesheet href=app.css><script src=app.js></script>", "app.css": "p {}", "app.js": "1"],
            under: source)
        let out = scratch.path + "/out"
        let first = try Self.object(try CLI.run(["pack", source, "-o", out, "--json"]).stdout)
        let expected = try #require(first["bundleDigest"] as? String)
        let same = try CLI.run(["pack", source, "-o", out, "--expect", expected])
        #expect(same.status == 0, "\(same.stderr)")

        try Self.write(["app.css": "p { color: red }", "new.js": ""], under: source)
        try FileManager.default.removeItem(atPath: source + "/app.js")
        try Self.write(["index.html": "<link rel=stylesheet href=app.css><script src=new.js></script>"], under: source)
        let changed = try CLI.run(["pack", source, "-o", out, "--expect", expected])
        #expect(changed.status == 65)
        let lines = changed.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Error: the bundle digest is sha256:") == true, "\(changed.stderr)")
        #expect(lines.first?.hasSuffix("not the expected \(expected)") == true)
        #expect(lines.contains { $0.hasPrefix("  changed  app.css  ") })
        #expect(lines.contains { $0.hasPrefix("  changed  index.html  ") })
        #expect(lines.contains("  added    new.js"))
        #expect(lines.contains("  removed  app.js"))

        let json = try CLI.run(["pack", source, "-o", out, "--expect", expected, "--json"])
        #expect(json.status == 65)
        let expectation = try #require(try Self.object(json.stdout)["expectation"] as? [String: Any])
        #expect(expectation["matches"] as? Bool == false)
        #expect((expectation["changed"] as? [[String: Any]])?.map { $0["path"] as? String } == ["app.css", "index.html"])
        #expect(expectation["added"] as? [String] == ["new.js"])
        #expect(expectation["removed"] as? [String] == ["app.js"])

        // Without the expected archive at hand, it says how to get the list.
        let elsewhere = try CLI.run(["pack", source, "-o", scratch.path + "/elsewhere", "--expect", expected])
        #expect(elsewhere.status == 65)
        #expect(elsewhere.stderr.contains("in the output folder to list the files that differ"))
    }

    @Test(arguments: [
        (["--expect", "sha256:00"], "Error: --expect: "),
        (["--expect", "sha256:" + String(repeating: "0", count: 64), "b"], "Error: --expect takes exactly one source folder"),
    ])
    func expectUsageErrors(_ extra: [String], _ message: String) throws {
        let result = try CLI.run(["pack", "a"] + extra)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
    }
}
