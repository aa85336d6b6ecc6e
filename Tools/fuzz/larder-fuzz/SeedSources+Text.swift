import Foundation
import LarderFormat
import LarderToolSupport

/// Seeds for the small grammars and the header values.
extension SeedSources {
    static func fontURLs() -> [[UInt8]] {
        let hex = example.hex
        return [
            "larder-font://sha256/\(hex)", "LARDER-FONT://sha256/\(hex)", "larder-font://SHA256/\(hex)", "larder-font:sha256/\(hex)",
            "larder-font://sha256/\(hex.uppercased())", "larder-font://sha256/\(hex)?v=1", "larder-font://sha256/\(hex)#x",
            "larder-font://sha256/../\(hex)", "larder-font://sha256/%2e%2e", "larder-font://sha256/\(hex.dropLast())",
            "larder-font://sha256/\(hex)0", "larder-font://user@sha256:80/\(hex)", "larder-font://sha256/\(hex)/",
        ].map { Array($0.utf8) }
    }

    /// Patterns from the samples' and the real-world packages' `larder.json`, and the tests',
    /// each followed by a NUL and paths to match.
    static func globs() -> [[UInt8]] {
        let patterns = [
            "test/", "*.map", "jax/", "config/TeX-AMS_CHTML.js", "/breadcrumbs.html", "unpacked/*.js", "**/fonts/*.woff2", "a/**/b",
            "[a-z]*.css", "[!a-c]?.js", "[^x]", "[]]", "*[", "**", "*", "?", "/", "a//b", "./x", "../x", "*a*a*a*a*a*b", "fonts/*.[ot]tf",
        ]
        let paths = [
            "test/a.js", "a/test", "a/b/test", "x.map", "jax/input/TeX/config.js", "config/TeX-AMS_CHTML.js", "unpacked/a.js",
            "x/unpacked/a.js", "fonts/a.woff2", "deep/fonts/b.woff2", "a/b", "a/x/y/b", "abc.css", "dz.js", "]", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "fonts/x.ttf", "é/ü.css",
        ].joined(separator: "\n")
        return patterns.map { Array($0.utf8) + [0] + Array(paths.utf8) }
    }

    /// URL paths: plain, escaped, NFD, and malformed escapes (the ones the packer once let
    /// through undecoded).
    static func urlPaths() -> [[UInt8]] {
        [
            "index.html", "images/a%20b.svg", "caf%C3%A9.html", "cafe%CC%81.html", "a%2Fb.css", "%2E%2E/%2E%2E/etc/passwd", "100%25.png",
            "100%.png", "a%FF.png", "bad%zzescape", "tail%", "tail%4", "%C3", "%ED%A0%80", "a%00b", "a//b", "",
        ].map { Array($0.utf8) }
    }

    static func bundlePaths() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        for folder in try sampleFolders() { seeds += files(in: folder).map { Array($0.utf8) } }
        for folder in try realWorldFolders() { seeds += spread(files(in: folder), count: filesPerSource).map { Array($0.utf8) } }
        seeds += [
            "../x", "/abs", "a//b", "a/./b", "a/", "e\u{301}.css", "\u{E9}.css", "a\\b", "a\u{7F}", String(repeating: "d/", count: 31) + "f",
            String(repeating: "x", count: 255), String(repeating: "y", count: 256), "manifest.json", "\u{FEFF}x", ".hidden/..a",
        ].map { Array($0.utf8) } + [[0x61, 0xFF], [0x61, 0x00, 0x62], [0xC0, 0xAF]]
        return seeds
    }

    static func digests() -> [[UInt8]] {
        let hex = example.hex
        return [
            example.description, hex, "sha256:" + hex.uppercased(), "SHA256:" + hex, "sha256:" + hex.dropLast(), "sha256:" + hex + "0",
            "sha512:" + hex + hex, "sha256-" + hex, "sha256:", "sha256:" + String(repeating: "g", count: 64),
        ].map { Array($0.utf8) } + [example.bytes + previous.bytes, previous.bytes + example.bytes]
    }

    static func retryAfterValues() -> [[UInt8]] {
        [
            "120", "0", " 5 ", "007", "-1", "1.5", "99999999999999999999", "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun Nov 6 08:49:37 1994", "Sun, 01 Jun 2025 00:10:00 GMT",
            "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Tue, 31 Feb 2026 25:61:61 GMT",
        ].map { Array($0.utf8) }
    }

    static func contentRanges() -> [[UInt8]] {
        [
            "bytes 0-1023/4096", "bytes */4096", "bytes 100-199/1000", "bytes 0-9/1099511627776", "BYTES 0-0/1", "bytes 5-4/10",
            "bytes 0-10/10", "bytes 0-99/*", "bytes  0-1/2", "bytes -1-2/3", "bytes +1-2/3", "bytes=0-1/2", "bytes 0-1/9223372036854775807",
            "bytes 0-1/9223372036854775808", "bytes 007-008/010",
        ].map { Array($0.utf8) }
    }
}
