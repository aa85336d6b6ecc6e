import Foundation
import LarderFormat
import LarderTestSupport
import Testing

/// A bundle named with terminal escapes (from `larder.json`, or any archive a cache fetches)
/// was printed raw by `pack`, `inspect`, `cache install` and `cache ls`: it erased a line and
/// printed a fake "verified OK". Every name from an input is printed escaped now, and `--json`
/// stays valid JSON with the name as it is.
@Suite struct HostileNamesCLITests {
    static let names: [(hostile: String, shown: String)] = [
        ("x\u{1B}[2K\rverified OK", "x\\x1b[2K\\rverified OK"),
        ("csi\u{1B}[1A\u{1B}[31mred", "csi\\x1b[1A\\x1b[31mred"),
        ("osc\u{1B}]0;owned\u{07}", "osc\\x1b]0;owned\\x07"),
        ("bell\u{07}\u{08}\u{08}OK", "bell\\x07\\x08\\x08OK"),
        ("two\nverified OK", "two\\nverified OK"),
        ("nul\u{0}tab\tdel\u{7F}", "nul\\x00tab\\tdel\\x7f"),
        ("c1\u{9B}2K\u{85}", "c1\\u{9b}2K\\u{85}"),
        ("rtl\u{202E}lmth.exe\u{2066}\u{2069}", "rtl\\u{202e}lmth.exe\\u{2066}\\u{2069}"),
    ]

    /// No character a terminal would act on, newlines apart.
    static func isClean(_ text: String) -> Bool {
        !text.unicodeScalars.contains { DisplayText.needsEscape($0) && $0 != "\n" }
    }

    static func jsonString(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text], options: [])
        let inner = String(decoding: data, as: UTF8.self).dropFirst().dropLast()
        return String(inner)
    }

    @Test(arguments: 0..<names.count)
    func everyPrinterEscapesTheName(_ index: Int) throws {
        let (hostile, shown) = Self.names[index]
        let scratch = try Scratch()
        let source = scratch.path + "/src"
        try FileManager.default.createDirectory(atPath: source + "/img", withIntermediateDirectories: true)
        try Data(#"<img src="img/a&#x202E;gnp.js">"#.utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: source + "/img/a\u{202E}gnp.js"))
        let configuration: [String: Any] = ["name": hostile]
        try JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: source + "/larder.json"))
        let cache = scratch.path + "/cache"
        let origin = scratch.path + "/origin"

        let pack = try CLI.run(["pack", source, "-o", scratch.path + "/out"])
        #expect(pack.status == 0, "\(pack.stderr)")
        let archive = try #require(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/out").first.map { scratch.path + "/out/" + $0 })
        let runs: [(String, [String], String)] = [
            ("pack", ["pack", source, "-o", scratch.path + "/out"], "Packed \(shown)\n"),
            ("pack of several", ["pack", source, source, "-o", scratch.path + "/out"], "packed"),
            ("inspect", ["inspect", archive], "Bundle   \(shown)\n"),
            ("cache install", ["cache", "install", archive, "--cache", cache], "Installed \(shown) sha256:"),
            ("cache install again", ["cache", "install", archive, "--cache", cache], "\(shown) sha256:"),
            ("cache ls", ["cache", "ls", "--cache", cache], "  \(shown)  "),
            ("cache show", ["cache", "show", String(archive.split(separator: "/").last!.prefix(12)), "--cache", cache], "Bundle   \(shown)\n"),
            ("cache pin", ["cache", "pin", String(archive.split(separator: "/").last!.prefix(12)), "--cache", cache], "pinned \(shown) sha256:"),
            ("publish", ["publish", archive, "--origin", origin], "published \(shown) sha256:"),
        ]
        for (what, arguments, expected) in runs {
            let result = try CLI.run(arguments)
            #expect(result.status == 0, "\(what): \(result.stderr)")
            #expect(Self.isClean(result.stdout) && Self.isClean(result.stderr), "\(what) printed a control character: \(result.stdout.debugDescription) \(result.stderr.debugDescription)")
            #expect(result.stdout.contains(expected), "\(what): \(result.stdout.debugDescription)")
            if what == "inspect" || what == "cache show" {
                #expect(result.stdout.contains("img/a\\u{202e}gnp.js"), "\(what): \(result.stdout.debugDescription)")
            }
        }
        // JSON keeps the name as it is, escaped the JSON way, and parses.
        for arguments in [["pack", source, "-o", scratch.path + "/out", "--json"], ["inspect", archive, "--json"], ["cache", "ls", "--cache", cache, "--json"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0)
            #expect(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) is [String: Any] || arguments[0] == "cache")
            #expect(result.stdout.contains(Self.jsonString(hostile)) || result.stdout.contains(hostile), "\(arguments): \(result.stdout.debugDescription)")
            #expect(!result.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(arguments) wrote a raw control character")
        }
    }

    /// A name no reader takes as UTF-8 is named with its bytes escaped.
    @Test func aFileNameThatIsNotUTF8IsShownByteByByte() throws {
        let scratch = try Scratch()
        let source = scratch.path + "/src"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try Data("<p>".utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        let name = source + "/bad\u{1B}[2K"
        var bytes = Array(name.utf8) + [0xFF, 0x00]
        let fd = bytes.withUnsafeMutableBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        close(fd)
        let result = try CLI.run(["pack", source, "-o", scratch.path + "/out"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("file name is not valid UTF-8: 'bad\\x1b[2K\\xff'; rename it"), "\(result.stderr.debugDescription)")
        #expect(Self.isClean(result.stderr))
    }
}
