import Foundation
import LarderTestSupport
import Testing

/// `larder publish` on a terminal shows a person how far it is: bytes of bytes, the rate and
/// the time left, on stderr; with stderr a pipe, or with --json, nothing is added.
@Suite struct PublishProgressCLITests {
    /// An archive of twelve files of text of random words, 48 MB in all: its publish (each
    /// object checked, written and gzipped, then the archive copied) takes a second or more
    /// and reports after each file.
    static func archive(in scratch: Scratch) throws -> String {
        let source = scratch.path + "/src"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        let names = (1...12).map { "words\($0).txt" }
        try Data(names.map { #"<p><a href="\#($0)">words</a>"# }.joined().utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        for name in names { try CLI.shell("base64 -w 76 /dev/urandom | head -c 4000000 > '\(source)/\(name)'") }
        let packed = try CLI.run(["pack", source, "--level", "1", "-o", scratch.path + "/archives", "--json"])
        #expect(packed.status == 0, "\(packed)")
        let archives = try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/archives").filter { $0.hasSuffix(".tar.gz") }
        return scratch.path + "/archives/" + (try #require(archives.first))
    }

    @Test func aTerminalSeesBytesRateAndTimeLeftAndAPipeSeesNothingMore() throws {
        let scratch = try Scratch()
        let archive = try Self.archive(in: scratch)
        let screen = scratch.path + "/screen"
        let terminal = try CLI.run(
            program: "/usr/bin/python3",
            ["-c", PackProgressCLITests.stderrOnATerminal, screen, CLI.executable, "publish", archive, "--origin", scratch.path + "/a"])
        #expect(terminal.status == 0, "\(terminal)")
        let shown = String(decoding: try Data(contentsOf: URL(fileURLWithPath: screen)), as: UTF8.self)
        let progress = try Regex(#"publishing \[[#-]{30}\] [0-9]{1,3}% [0-9.]+ (B|kB|MB) of [0-9.]+ MB, [0-9.]+ (B|kB|MB|GB)/s, [0-9]+ (s|min [0-9]+ s) left"#)
        #expect(shown.contains(progress), "\(shown.prefix(2000))")
        // The bar is cleared before the report: stdout has the report alone.
        #expect(shown.hasSuffix("\r\u{1B}[K"), "\(shown.suffix(300))")
        #expect(terminal.stdout.hasPrefix("published src "), "\(terminal.stdout)")

        let piped = try CLI.run(["publish", archive, "--origin", scratch.path + "/b"])
        #expect(piped.status == 0, "\(piped)")
        #expect(piped.stderr.isEmpty, "\(piped.stderr)")
        #expect(piped.stdout == terminal.stdout)

        // --json on a terminal: the report alone, no bar.
        let json = try CLI.run(
            program: "/usr/bin/python3",
            ["-c", PackProgressCLITests.stderrOnATerminal, screen, CLI.executable, "publish", archive, "--origin", scratch.path + "/c", "--json"])
        #expect(json.status == 0, "\(json)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: screen)).isEmpty)
        #expect(json.stdout.hasPrefix("{"), "\(json.stdout)")
    }
}
