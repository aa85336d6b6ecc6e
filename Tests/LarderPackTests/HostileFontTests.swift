import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderPack

/// Fonts built to cost the packer or the devices: a few bytes that inflate past the limit on a
/// decoded font, and a character map of many thousand ranges.
@Suite struct HostileFontTests {
    static let openSans = FontPipelineTests.openSans

    /// OpenSans as a WOFF 1.0 file (tables stored) with one more table: 40 MiB of zeros, in
    /// about 40 kB of zlib.
    static let inflatingWOFF: [UInt8] = {
        let tables = FontFixtures.tables(of: openSans).map { (tag: $0.tag, stored: $0.bytes, length: $0.bytes.count) }
        return FontFixtures.woff(tables + [(tag: "zero", stored: FontFixtures.zlibOfZeros(40 << 20), length: 40 << 20)])
    }()

    /// Font Awesome's WOFF2 saying its font is 40 MiB (WebKit reserves what it says).
    static func declaringWOFF2() throws -> [UInt8] {
        var bytes = Array(try #require(FileManager.default.contents(atPath: "/usr/share/fonts-font-awesome/fonts/fontawesome-webfont.woff2")))
        let size = 40 << 20
        bytes.replaceSubrange(16..<20, with: [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
        return bytes
    }

    /// A WOFF whose tables inflate past 16 MiB, or a WOFF2 declaring such a font, is refused
    /// from its headers, whatever the other settings (`--strict` or not, subsets or not): an
    /// error naming the file and the limit, nothing written, nothing inflated.
    @Test(arguments: ["woff", "woff2", "woff subsets"])
    func aFontThatDecodesPastTheLimitIsRefused(_ kind: String) throws {
        let (file, bytes) = kind.hasPrefix("woff2") ? ("fonts/face.woff2", try Self.declaringWOFF2()) : ("fonts/face.woff", Self.inflatingWOFF)
        #expect(bytes.count < 400_000)
        let folder = try FontPipelineTests.folder(
            fonts: kind.hasSuffix("subsets") ? #"{"subsets": ["latin"]}"# : nil, src: "url(../\(file))", files: [file: bytes])
        let errors = folder.packFailure()
        #expect(errors.map(\.code) == [.fontTooLarge], "\(errors)")
        let message = try #require(errors.first?.message)
        #expect(message.hasPrefix("\(file): the font of 'Face' 400 normal decodes to "), "\(message)")
        #expect(message.contains("bytes, over the 16 MiB limit on a decoded font"), "\(message)")
        #expect(errors.first?.location?.description == "css/site.css:1:1")
        #expect(folder.outputFiles.isEmpty)
        #expect(try FontTools.decodedSize(of: bytes) >= 40 << 20)
    }

    /// A font cache holding the character map of such a font (stored by a version without the
    /// limit, signed with this user's key) lifts nothing: the WOFF2, packed as it is without
    /// subsets, is still refused.
    @Test func aCachedCharacterMapDoesNotLiftTheLimit() throws {
        let cache = try SourceFolder()
        let bytes = try Self.declaringWOFF2()
        let original = Array(try #require(FileManager.default.contents(atPath: "/usr/share/fonts-font-awesome/fonts/fontawesome-webfont.woff2")))
        let characters = Array(try FontTools.characters(of: try FontTools.sfnt(of: original, limit: 16 << 20)).description.utf8)
        let key = "input \(SHA256Hasher.hash(bytes))\noperation characters\n\(FontTools.conversionDependencies)"
        let stored = try FontCache(.folder(cache.root)).value(for: key, verify: { _ in true }, make: { characters })
        #expect(stored == characters)
        let folder = try FontPipelineTests.folder(src: "url(../fonts/face.woff2)", files: ["fonts/face.woff2": bytes])
        var options = PackOptions()
        options.fontCache = .folder(cache.root)
        do {
            let report = try Packer.pack(source: folder.root, into: folder.output, options: options)
            Issue.record("packed: \(report.fonts.faces.map(\.outcome)), \(report.fonts.cacheHits) cache hit(s)")
        } catch {
            #expect(error.errors.map(\.code) == [.fontTooLarge], "\(error)")
        }
    }

    /// A CFF font whose charstrings HarfBuzz cannot subset (MathJax's cut to a few characters,
    /// one byte inserted in its CFF table: what the font-subset fuzz target found): HarfBuzz 6
    /// leaves the table out and succeeds, so the subset would draw nothing. The face is packed
    /// as written with a warning instead; every WOFF2 packed is a font.
    @Test func aSubsetWithoutItsOutlinesIsNeverPacked() throws {
        let mathJax = Array(try #require(FileManager.default.contents(atPath: "/usr/share/fonts/opentype/mathjax/MathJax_Main-Regular.otf")))
        var font = try FontTools.subset(mathJax, to: UnicodeRanges(scalars: "0123456789$.,%-→".unicodeScalars.map(\.value)), features: FontFeatures())
        let cff = try #require(FontFixtures.tables(of: font).firstIndex { $0.tag == "CFF " })
        let offset = FontFixtures.read32(font, 12 + cff * 16 + 8)
        font.insert(27, at: offset + 1282)
        font.removeLast()
        let folder = try FontPipelineTests.folder(fonts: #"{"subsets": ["latin"]}"#, src: "url(../fonts/face.otf)", files: ["fonts/face.otf": font])
        let report = try FontPipelineTests.pack(folder)
        for (path, bytes) in try FontPipelineTests.files(report) where path.hasSuffix(".woff2") {
            #expect(throws: Never.self, "\(path)") { try FontTools.sfnt(of: bytes, limit: 16 << 20) }
        }
        #expect(report.fonts.faces.first?.outcome == .unconverted)
        let warning = try #require(report.warnings.first { $0.kind == .unconvertedFont })
        #expect(warning.message.contains("HarfBuzz could not subset its 'CFF ' table and left it out"), "\(warning.message)")
    }

    /// Characters a font maps past its last glyph (or to .notdef) are not its characters: no
    /// engine draws them and HarfBuzz's subsetter drops them, so no subset is made for them and
    /// no `unicode-range` claims them (what the font-subset fuzz target found).
    @Test func charactersMappedToNoGlyphAreNotTheFonts() throws {
        let font = FontFixtures.replacingCharacterMap(of: Self.openSans, withSegments: [(0x20...0x7E, 3), (0xE000...0xE002, 60_000), (0xE010...0xE010, 0)])
        #expect(try FontTools.characters(of: font).description == "U+20-7E")
        let folder = try FontPipelineTests.folder(fonts: #"{"subsets": ["latin", "private-use"]}"#, files: ["fonts/face.ttf": font])
        let face = try #require(try FontPipelineTests.pack(folder).fonts.faces.first)
        #expect(face.subsets.map(\.name) == ["latin"])
        #expect(face.subsets.first?.ranges?.description == "U+20-7E")
    }

    /// A table tag with a byte past ASCII ('zzz\u{8F}'): woff2's encoder takes it for one of its
    /// own transformed tables, leaves it out of the WOFF2's directory but not of its stream, and
    /// its decoder then refuses the file (what the font-encode fuzz target found). The face is
    /// packed as written with a warning instead; every WOFF2 packed decodes.
    @Test func aTableTagThatIsNotASCIIIsRefused() throws {
        var font = FontFixtures.sfnt(FontFixtures.tables(of: Self.openSans) + [.init(tag: "zzzz", bytes: [UInt8](repeating: 7, count: 100))])
        let entry = try #require((0..<FontFixtures.read16(font, 4)).first { font[(12 + $0 * 16)..<(16 + $0 * 16)].elementsEqual("zzzz".utf8) })
        font[12 + entry * 16 + 3] = 0x8F
        let folder = try FontPipelineTests.folder(files: ["fonts/face.ttf": font])
        let report = try FontPipelineTests.pack(folder)
        for (path, bytes) in try FontPipelineTests.files(report) where path.hasSuffix(".woff2") {
            #expect(throws: Never.self, "\(path)") { try FontTools.sfnt(of: bytes, limit: 16 << 20) }
        }
        #expect(report.fonts.faces.first?.outcome == .unconverted)
        let warning = try #require(report.warnings.first { $0.kind == .unconvertedFont })
        #expect(warning.message.contains("tag is not four printable ASCII characters"), "\(warning.message)")
        let sfnt = try FontTools.subset(Self.openSans, to: UnicodeRanges([0x20...0x7E]), features: FontFeatures())
        #expect(try FontTools.sfnt(of: try FontTools.woff2(sfnt, quality: 1), limit: 16 << 20).count > 0)
    }

    /// The same WOFF with its zero table inside the limit converts as before: the limit is on
    /// what a font decodes to, not on WOFF.
    @Test func aWOFFInsideTheLimitConverts() throws {
        let tables = FontFixtures.tables(of: Self.openSans).map { (tag: $0.tag, stored: $0.bytes, length: $0.bytes.count) }
        let woff = FontFixtures.woff(tables + [(tag: "zero", stored: FontFixtures.zlibOfZeros(1 << 20), length: 1 << 20)])
        let folder = try FontPipelineTests.folder(src: "url(../fonts/face.woff)", files: ["fonts/face.woff": woff])
        let report = try FontPipelineTests.pack(folder)
        #expect(report.fonts.faces.first?.outcome == .converted)
        #expect(report.warnings.isEmpty, "\(report.warnings)")
    }

    /// A font whose character map is 20,000 ranges (every other code point of a plane): its
    /// subset's `unicode-range` is written as one range, since the code points between are ones
    /// the font lacks, so the stylesheet stays small; and what each subset holds, and which
    /// subset an engine loads for each character the font has, do not change.
    @Test func aCharacterMapOfManyRangesGivesAShortUnicodeRange() throws {
        let scattered = (0..<20_000).map { UInt32(0x10000 + 2 * $0) }.map { $0...$0 }
        let font = FontFixtures.replacingCharacterMap(of: Self.openSans, with: [0x20...0x7E] + scattered)
        let folder = try FontPipelineTests.folder(
            fonts: #"{"subsets": ["latin", "U+10000-1FFFF"], "quality": 1}"#, files: ["fonts/face.ttf": font])
        let report = try FontPipelineTests.pack(folder)
        let css = try FontPipelineTests.css(report)
        #expect(css.utf8.count < 2_000, "\(css.utf8.count) bytes of CSS")
        let face = try #require(report.fonts.faces.first)
        #expect(face.subsets.map(\.name) == ["latin", "u10000"])
        let written = try #require(face.subsets[1].ranges)
        #expect(written.description == "U+10000-19C3E")
        #expect(css.contains("unicode-range: U+10000-19C3E;"))
        // Each subset holds what it held (the font's characters in its ranges, and the space
        // every subset has), and its unicode-range holds those and no other character of the font.
        let files = try FontPipelineTests.files(report)
        let fontCharacters = UnicodeRanges([0x20...0x7E] + scattered)
        for (subset, declared) in zip(face.subsets, [NamedRanges.ranges(named: "latin")!, UnicodeRanges([0x10000...0x1FFFF])]) {
            let held = try FontTools.characters(of: try FontTools.sfnt(of: try #require(files[subset.path]), limit: 16 << 20))
            let holdsWhatItHeld = held == fontCharacters.intersection(declared).union(FontPipeline.alwaysKept)
            #expect(holdsWhatItHeld, "\(subset.name): \(held.ranges.count) ranges")
            let range = try #require(subset.ranges)
            let loadsForItsOwn = range.intersection(fontCharacters) == fontCharacters.intersection(declared)
            #expect(loadsForItsOwn, "\(subset.name): \(range)")
        }
    }
}
