import Testing
@testable import LarderFormat

/// Hostile names made printable: the one escaping every human-readable printer uses.
@Suite struct DisplayTextTests {
    @Test(arguments: [
        ("plain name", "plain name"),
        ("\u{1B}[2K\rverified OK", "\\x1b[2K\\rverified OK"),  // CSI: erase the line, then a fake verdict
        ("\u{1B}]0;title\u{07}", "\\x1b]0;title\\x07"),  // OSC: the window title, ended by BEL
        ("\u{1B}]8;;https://evil.example\u{1B}\\link\u{1B}]8;;\u{1B}\\", "\\x1b]8;;https://evil.example\\x1b\\link\\x1b]8;;\\x1b\\"),
        ("bell\u{07}", "bell\\x07"),
        ("back\u{08}\u{08}\u{08}\u{08}OK", "back\\x08\\x08\\x08\\x08OK"),
        ("nul\u{0}", "nul\\x00"),
        ("del\u{7F}", "del\\x7f"),
        ("two\nlines\tand a tab", "two\\nlines\\tand a tab"),
        ("c1 \u{9B}2K csi and \u{85} nel", "c1 \\u{9b}2K csi and \\u{85} nel"),
        ("\u{80}\u{9F}", "\\u{80}\\u{9f}"),
        ("abc\u{202E}txt.exe", "abc\\u{202e}txt.exe"),  // right-to-left override
        ("\u{2066}\u{2067}\u{2068}\u{2069}", "\\u{2066}\\u{2067}\\u{2068}\\u{2069}"),
        ("\u{202A}\u{202B}\u{202C}\u{202D}\u{200E}\u{200F}\u{061C}", "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{200e}\\u{200f}\\u{61c}"),
        ("line\u{2028}separator\u{2029}", "line\\u{2028}separator\\u{2029}"),
        ("été 🎉 中文 a\\b", "été 🎉 中文 a\\b"),  // printable text, backslashes included, stays as it is
    ])
    func escapesEveryControl(_ hostile: String, _ shown: String) {
        #expect(DisplayText.escaping(hostile) == shown)
        #expect(DisplayText.escaping(shown) == shown, "escaping twice changes nothing")
        #expect(!DisplayText.escaping(hostile).unicodeScalars.contains(where: DisplayText.needsEscape))
    }

    @Test func linesKeepTheirNewlinesOnly() {
        #expect(DisplayText.escaping(lines: "a\n\u{1B}[1Ab\r\n") == "a\n\\x1b[1Ab\\r\n")
    }

    @Test(arguments: [
        ([0x61, 0xFF, 0x62] as [UInt8], "a\\xffb"),
        ([0xC3, 0xA9, 0xC3] as [UInt8], "é\\xc3"),
        ([0xE2, 0x80, 0xAE, 0x1B, 0x5B] as [UInt8], "\\u{202e}\\x1b["),
        ([0xC2, 0x9B, 0x80] as [UInt8], "\\u{9b}\\x80"),
        ([0xED, 0xA0, 0x80] as [UInt8], "\\xed\\xa0\\x80"),  // a UTF-16 surrogate: not UTF-8
    ])
    func bytesThatAreNotUTF8(_ bytes: [UInt8], _ shown: String) {
        #expect(DisplayText.escaping(bytes: bytes) == shown)
    }

    @Test func everyControlCharacterIsEscaped() {
        for value in Array(0..<0x20) + Array(0x7F...0x9F) {
            let scalar = Unicode.Scalar(UInt32(value))!
            let shown = DisplayText.escaping(String(Character(scalar)))
            #expect(shown.hasPrefix("\\"), "U+\(String(value, radix: 16)) printed as \(shown.unicodeScalars.map(\.value))")
            #expect(shown.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F })
        }
    }
}
