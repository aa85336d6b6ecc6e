import Testing
@testable import LarderFormat

@Suite struct BundlePathTests {
    @Test(arguments: ["index.html", "css/app.css", "fonts/Lato-Regular.ttf", "café.html", "a/b/c/d.txt", ".well-known/x"])
    func acceptsSafePaths(_ path: String) throws {
        try BundlePath.validate(path)
    }

    @Test(arguments: [
        "", "/etc/passwd", "../x", "a/../../x", "a/./b", "a//b", "a/", "a\\b", "a\u{0}b", "tab\there",
        "cafe\u{301}.html",  // NFD
        String(repeating: "a", count: 256),
        String(repeating: "a/", count: 32) + "x",
        String(repeating: "abcdefgh/", count: 120) + "x",
    ])
    func rejectsUnsafePaths(_ path: String) {
        #expect(throws: FormatError.self) { try BundlePath.validate(path) }
    }

    @Test func rejectsNonUTF8Bytes() {
        #expect(throws: FormatError.self) { try BundlePath.validate(bytes: [0x61, 0xFF, 0x62]) }
    }
}
