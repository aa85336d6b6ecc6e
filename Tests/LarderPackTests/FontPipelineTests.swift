import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderPack

/// The font pipeline on real fonts: WOFF2 from Google's encoder, one source per face,
/// `unicode-range` subsets from HarfBuzz's subsetter, the text's characters kept, and fonts the
/// libraries cannot read packed as they are.
@Suite struct FontPipelineTests {
    static let lato = try! Array(Data(contentsOf: URL(fileURLWithPath: sampleBundles + "/onboarding/fonts/Lato-Regular.ttf")))
    static let openSans = try! Array(Data(contentsOf: URL(fileURLWithPath: sampleBundles + "/onboarding/fonts/OpenSans-Regular.ttf")))

    /// A folder with one face (`fonts/face.ttf` unless `font` names another file) and a page.
    static func folder(
        fonts settings: String? = nil, body: String = "<p>Plan a week of meals</p>", src: String = "url(../fonts/face.ttf) format('truetype')",
        files: [String: [UInt8]] = ["fonts/face.ttf": openSans]
    ) throws -> SourceFolder {
        let folder = try SourceFolder([
            "index.html": #"<!doctype html><link rel="stylesheet" href="css/site.css">"# + body,
            "css/site.css": "@font-face {\n  font-family: \"Face\";\n  font-weight: 400;\n  src: \(src);\n}\nbody { font-family: Face; }\n",
        ])
        if let settings { try folder.write("larder.json", Array(#"{"fonts": \#(settings)}"#.utf8)) }
        for (path, bytes) in files { try folder.write(path, bytes) }
        return folder
    }

    static func pack(_ folder: SourceFolder, strict: Bool = false, cache: String? = nil) throws -> PackReport {
        var options = PackOptions(strict: strict)
        options.fontCache = cache.map { .folder($0) } ?? .none
        return try Packer.pack(source: folder.root, into: folder.output, options: options)
    }

    static func files(_ report: PackReport) throws -> [String: [UInt8]] {
        Dictionary(try TestArchive.readAll(try ArchiveReader(path: report.archivePath)), uniquingKeysWith: { first, _ in first })
    }

    static func css(_ report: PackReport) throws -> String { String(decoding: try #require(try files(report)["css/site.css"]), as: UTF8.self) }

    @Test func aFaceBecomesOneWOFF2SourceAndItsTrueTypeFileIsNotPacked() throws {
        let folder = try Self.folder()
        let report = try Self.pack(folder)
        let files = try Self.files(report)
        #expect(files["fonts/face.ttf"] == nil)
        let woff2 = try #require(files["fonts/face.woff2"])
        #expect(woff2.starts(with: Array("wOF2".utf8)))
        #expect(woff2.count < Self.openSans.count / 2)
        let css = try Self.css(report)
        #expect(css.contains(#"src: url("larder-font://sha256/\#(SHA256Hasher.hash(woff2).hex)") format("woff2");"#), "\(css)")
        #expect(!css.contains("unicode-range"))
        let face = try #require(report.fonts.faces.first)
        #expect(face.outcome == .converted && face.source == "fonts/face.ttf" && face.sourceBytes == Int64(Self.openSans.count))
        #expect(face.subsets.map(\.path) == ["fonts/face.woff2"] && face.subsets[0].essential)
        let manifest = try #require(try BundleVerifier.verify(archiveAt: report.archivePath).manifest)
        #expect(manifest.file(at: "fonts/face.woff2")?.role == .font && manifest.file(at: "fonts/face.woff2")?.mediaType == "font/woff2")
        #expect(report.warnings.isEmpty, "\(report.warnings)")
    }

    /// Font Awesome's list of five formats: the WOFF2 stays as it is, the others go.
    @Test func alternativesOfAFaceAreNotPacked() throws {
        let woff2 = try #require(FileManager.default.contents(atPath: "/usr/share/fonts-font-awesome/fonts/fontawesome-webfont.woff2"))
        let src = "url('../fonts/fa.eot?#iefix') format('embedded-opentype'), url('../fonts/fa.woff2?v=4.7.0') format('woff2'), "
            + "url(../fonts/fa.ttf) format('truetype'), url('../fonts/fa.svg#fontawesomeregular') format('svg')"
        let folder = try Self.folder(
            body: #"<link rel="preload" as="font" href="fonts/fa.ttf" crossorigin><p>x</p>"#, src: src,
            files: ["fonts/fa.eot": Array("EOT".utf8), "fonts/fa.woff2": Array(woff2), "fonts/fa.ttf": Self.openSans, "fonts/fa.svg": Array("<svg/>".utf8)])
        let report = try Self.pack(folder)
        let files = try Self.files(report)
        #expect(files.keys.filter { $0.hasPrefix("fonts/") } == ["fonts/fa.woff2"])
        #expect(files["fonts/fa.woff2"] == Array(woff2))
        let url = "larder-font://sha256/" + SHA256Hasher.hash(Array(woff2)).hex
        #expect(try Self.css(report).contains(#"src: url("\#(url)") format("woff2");"#))
        // The preload named another alternative: it loads the one source too.
        #expect(String(decoding: try #require(files["index.html"]), as: UTF8.self).contains(#"href="\#(url)""#))
        #expect(report.fonts.faces.first?.outcome == .woff2)
        #expect(report.fonts.faces.first?.dropped == ["fonts/fa.eot", "fonts/fa.svg", "fonts/fa.ttf"])
    }

    @Test func aSourceSomethingElseUsesStaysPacked() throws {
        let folder = try Self.folder(body: #"<a href="fonts/face.ttf">Download the font</a>"#)
        let files = try Self.files(try Self.pack(folder))
        #expect(files["fonts/face.ttf"] == Self.openSans)
        #expect(files["fonts/face.woff2"] != nil)
    }

    @Test func woff2FalseKeepsTheSourcesAndFilesAsWritten() throws {
        let folder = try Self.folder(fonts: #"{"woff2": false}"#)
        let report = try Self.pack(folder)
        let files = try Self.files(report)
        #expect(files["fonts/face.ttf"] == Self.openSans && files["fonts/face.woff2"] == nil)
        #expect(try Self.css(report).contains(#"url("larder-font://sha256/\#(SHA256Hasher.hash(Self.openSans).hex)") format('truetype')"#))
        #expect(report.fonts.faces.isEmpty)
    }

    /// Latin and Cyrillic subsets of a face, each its own rule; the page's text is Latin, so
    /// only the Latin file is essential; the arrow the text uses (outside both ranges) is kept
    /// in the Latin subset and reported where it is.
    @Test func subsetsAreRulesWithUnicodeRangesAndKeepTheCharactersTheTextUses() throws {
        let folder = try Self.folder(
            fonts: #"{"subsets": ["latin", "cyrillic"]}"#, body: "<p>Continue <span>&rarr;</span></p>", files: ["fonts/face.ttf": Self.lato])
        let report = try Self.pack(folder)
        let face = try #require(report.fonts.faces.first)
        #expect(face.subsets.map(\.name) == ["latin", "cyrillic"])
        #expect(face.subsets.map(\.path) == ["fonts/face.latin.woff2", "fonts/face.cyrillic.woff2"])
        #expect(face.subsets.map(\.essential) == [true, false])
        #expect(face.kept.map(\.code) == ["U+2192"])
        #expect(face.kept.first?.location.description == "index.html:1:77")
        let latin = try #require(face.subsets[0].ranges)
        #expect(latin.contains(0x2192) && latin.contains(0x41) && !latin.contains(0x416))
        #expect(face.subsets[1].ranges?.contains(0x416) == true)
        let css = try Self.css(report)
        #expect(css.components(separatedBy: "@font-face").count == 3)
        #expect(css.contains("unicode-range: \(latin);") && css.contains("unicode-range: \(face.subsets[1].ranges!);"))
        let manifest = try #require(try BundleVerifier.verify(archiveAt: report.archivePath).manifest)
        #expect(manifest.file(at: "fonts/face.latin.woff2")?.essential == true)
        #expect(manifest.file(at: "fonts/face.cyrillic.woff2")?.essential == false)
        let files = try Self.files(report)
        #expect(try #require(files["fonts/face.latin.woff2"]).count < 60_000)
    }

    /// With `"keepUsed": false` a character no subset holds is a warning at its place, and an
    /// error with `--strict`.
    @Test func keepUsedFalseReportsTheCharactersNoSubsetHolds() throws {
        let folder = try Self.folder(fonts: #"{"subsets": ["latin"], "keepUsed": false}"#, body: "<p>Continue\n &rarr;</p>", files: ["fonts/face.ttf": Self.lato])
        let report = try Self.pack(folder)
        let warning = try #require(report.warnings.first { $0.kind == .uncoveredCharacter })
        #expect(warning.message.hasPrefix("U+2192 '→' is in no subset of 'Face' 400 normal"))
        #expect(warning.location?.description == "index.html:2:2")
        #expect(report.fonts.faces.first?.kept.isEmpty == true)
        #expect(report.fonts.faces.first?.subsets.first?.ranges?.contains(0x2192) == false)
        let errors = folder.packFailure(strict: true)
        #expect(errors.map(\.code) == [.uncoveredCharacter])
        #expect(errors.first?.location?.description == "index.html:2:2")
    }

    /// Per-face and per-file settings win over the bundle's: an icon font keeps its private-use
    /// range, another face stays whole.
    @Test func facesAndFilesHaveTheirOwnSubsets() throws {
        let settings = #"{"subsets": ["latin"], "faces": {"Face": {"subsets": ["U+E000-F8FF"]}}, "files": {"fonts/other.ttf": {"subsets": []}}}"#
        let folder = try Self.folder(fonts: settings, files: ["fonts/face.ttf": Self.lato])
        try folder.write("css/site.css", Array("""
            @font-face { font-family: "Face"; src: url(../fonts/face.ttf); }
            @font-face { font-family: "Other"; src: url(../fonts/other.ttf); }
            @font-face { font-family: "Third"; src: url(../fonts/third.ttf); }
            """.utf8))
        try folder.write("fonts/other.ttf", Self.openSans)
        try folder.write("fonts/third.ttf", Self.openSans)
        let faces = try Self.pack(folder).fonts.faces
        #expect(faces.map(\.family) == ["Face", "Other", "Third"])
        // Lato has no private-use characters: its subset holds only what the text uses.
        #expect(faces[0].subsets.map(\.name) == ["ue000"])
        let text = UnicodeRanges(scalars: "Plan a week of meals".unicodeScalars.map(\.value))
        #expect(faces[0].subsets.first?.ranges == text.union(UnicodeRanges([0xF8FF...0xF8FF])))  // Lato's one private-use glyph
        #expect(faces[1].subsets.map(\.name) == ["all"])
        #expect(faces[2].subsets.map(\.name) == ["latin"])
    }

    @Test(arguments: [
        #"{"subsets": ["klingon"]}"#, #"{"subsets": "latin"}"#, #"{"subsets": ["U+ZZ"]}"#, #"{"woff2": false, "subsets": ["latin"]}"#,
        #"{"keepUsed": 1}"#, #"{"quality": 12}"#, #"{"faces": {"Face": {"ranges": []}}}"#, #"{"other": true}"#,
    ])
    func badFontSettingsAreConfigurationErrors(_ settings: String) throws {
        let folder = try Self.folder(fonts: settings)
        let errors = folder.packFailure()
        #expect(errors.map(\.code) == [.invalidConfiguration], "\(errors)")
        #expect(errors.first?.message.hasPrefix("field 'fonts.") == true, "\(errors)")
    }

    /// Bad fonts are packed as they are, with a warning naming them (errors with `--strict`);
    /// a WOFF2 already is packed as it is without one.
    @Test(arguments: BadFont.allCases)
    func badFontsArePackedAsTheyAre(_ font: BadFont) throws {
        let bytes = try font.bytes()
        let folder = try Self.folder(files: ["fonts/face.ttf": bytes])
        let report = try Self.pack(folder)
        let files = try Self.files(report)
        let warnings = report.warnings.filter { $0.kind == .unconvertedFont }
        if let expected = font.problem {
            #expect(files["fonts/face.ttf"] == bytes)
            #expect(warnings.count == 1)
            #expect(warnings.first?.path == "fonts/face.ttf")
            #expect(warnings.first?.message.contains(expected) == true, "\(warnings)")
            #expect(report.fonts.faces.first?.outcome == .unconverted)
            #expect(try Self.css(report).contains("larder-font://sha256/\(SHA256Hasher.hash(bytes).hex)"))
            let errors = folder.packFailure(strict: true)
            #expect(errors.map(\.code) == [.unconvertedFont])
            #expect(errors.first?.message.contains("fonts/face.ttf") == true)
            #expect(folder.outputFiles.filter { $0.hasSuffix(".tar.gz") }.count == 1)  // the first pack's; nothing half-written
        } else {
            #expect(warnings.isEmpty, "\(warnings)")
            #expect(files["fonts/face.ttf"] == bytes)
            #expect(report.fonts.faces.first?.outcome == .woff2)
            #expect(folder.packFailure(strict: true).isEmpty)
        }
    }

    enum BadFont: String, CaseIterable, CustomStringConvertible {
        case truncated, html, empty, collection, huge, woff2

        var description: String { rawValue }

        /// The warning's words; nil: no warning.
        var problem: String? {
            switch self {
            case .truncated: "ends past the end of the file"
            case .html: "not a font: it starts like HTML"
            case .empty: "an empty file"
            case .collection: "a TrueType collection"
            case .huge: "over the 16 MiB the packer converts"
            case .woff2: nil
            }
        }

        func bytes() throws -> [UInt8] {
            switch self {
            case .truncated: return Array(FontPipelineTests.openSans.prefix(100_000))
            case .html: return Array("<!doctype html><title>404 Not Found</title>".utf8)
            case .empty: return []
            case .collection: return Self.collection(of: FontPipelineTests.openSans)
            case .huge:
                // A real font followed by 50 MB that do not compress (a gzip-bomb check would refuse zeros).
                var state: UInt64 = 0x9E37_79B9_7F4A_7C15
                var padding = [UInt8](repeating: 0, count: 50 << 20)
                for index in stride(from: 0, to: padding.count, by: 8) {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    withUnsafeBytes(of: state) { padding.replaceSubrange(index..<(index + 8), with: $0) }
                }
                return FontPipelineTests.openSans + padding
            case .woff2:
                return Array(try #require(FileManager.default.contents(atPath: "/usr/share/fonts-font-awesome/fonts/fontawesome-webfont.woff2")))
            }
        }

        /// A TrueType collection (`ttcf` 1.0) holding the one font, its table offsets moved.
        static func collection(of font: [UInt8]) -> [UInt8] {
            var moved = font
            let tables = Int(font[4]) << 8 | Int(font[5])
            for index in 0..<tables {
                let at = 12 + index * 16 + 8
                let offset = (UInt32(font[at]) << 24 | UInt32(font[at + 1]) << 16 | UInt32(font[at + 2]) << 8 | UInt32(font[at + 3])) + 16
                moved.replaceSubrange(at..<(at + 4), with: [UInt8(offset >> 24), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)])
            }
            return Array("ttcf".utf8) + [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 16] + moved
        }
    }

    /// The same sources give the same bytes with an empty font cache, a warm one, or none.
    @Test func packingIsDeterministicWhateverTheFontCacheHolds() throws {
        let cache = try SourceFolder()
        let folder = try Self.folder(fonts: #"{"subsets": ["latin", "latin-ext"]}"#, files: ["fonts/face.ttf": Self.lato])
        let cold = try Self.pack(folder, cache: cache.root)
        let coldBytes = try #require(FileManager.default.contents(atPath: cold.archivePath))
        #expect(cold.fonts.conversions == 3 && cold.fonts.cacheHits == 0)
        try FileManager.default.removeItem(atPath: cold.archivePath)
        let warm = try Self.pack(folder, cache: cache.root)
        #expect(warm.fonts.conversions == 0 && warm.fonts.cacheHits == 3)
        #expect(FileManager.default.contents(atPath: warm.archivePath) == coldBytes)
        try FileManager.default.removeItem(atPath: warm.archivePath)
        let none = try Self.pack(folder)
        #expect(FileManager.default.contents(atPath: none.archivePath) == coldBytes)
    }

    /// An entry that does not check out (cut short, its bytes changed, another key's file in
    /// its place) is converted again and replaced, never used.
    @Test(arguments: ["cut", "flipped", "swapped"])
    func aWrongFontCacheEntryIsNeverUsed(_ damage: String) throws {
        let cache = try SourceFolder()
        let folder = try Self.folder(files: ["fonts/face.ttf": Self.lato])
        let first = try Self.pack(folder, cache: cache.root)
        let expected = try #require(FileManager.default.contents(atPath: first.archivePath))
        try FileManager.default.removeItem(atPath: first.archivePath)
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache.root).filter { !$0.hasPrefix(".") }.sorted()
        #expect(entries.count == 2)  // the character map and the WOFF2
        // The larger entry is the WOFF2.
        let sizes = try entries.map { try FileManager.default.attributesOfItem(atPath: cache.root + "/" + $0)[.size] as! Int }
        let woff2 = cache.root + "/" + entries[sizes[0] > sizes[1] ? 0 : 1]
        let other = cache.root + "/" + entries[sizes[0] > sizes[1] ? 1 : 0]
        var bytes = try #require(FileManager.default.contents(atPath: woff2))
        switch damage {
        case "cut": bytes = bytes.prefix(bytes.count / 2)
        case "flipped": bytes[bytes.count - 10] ^= 0xFF
        default: bytes = try #require(FileManager.default.contents(atPath: other))
        }
        try bytes.write(to: URL(fileURLWithPath: woff2))
        let again = try Self.pack(folder, cache: cache.root)
        #expect(again.fonts.rejectedCacheEntries == 1 && again.fonts.conversions == 1)
        #expect(FileManager.default.contents(atPath: again.archivePath) == expected)
        try FileManager.default.removeItem(atPath: again.archivePath)
        let third = try Self.pack(folder, cache: cache.root)
        #expect(third.fonts.rejectedCacheEntries == 0 && third.fonts.cacheHits == 2)
    }

    @Test func anUnwritableFontCacheIsAWarningAndThePackGoesOn() throws {
        let cache = try SourceFolder()
        try Data("a file".utf8).write(to: URL(fileURLWithPath: cache.root + "/fonts"))
        let folder = try Self.folder()
        let report = try Self.pack(folder, cache: cache.root + "/fonts/inside")
        #expect(report.warnings.map(\.kind) == [.fontCache])
        #expect(report.fonts.cacheFolder == nil)
        #expect(try Self.files(report)["fonts/face.woff2"] != nil)
    }

    @Test func unicodeRangesParseAndPrintInCSSForm() throws {
        let ranges = try #require(UnicodeRanges(css: "U+0000-00FF, u+2192, U+4??"))
        #expect(ranges.description == "U+0-FF, U+400-4FF, U+2192")
        #expect(ranges.contains(0x4A0) && !ranges.contains(0x500) && ranges.contains(0x2192))
        #expect(UnicodeRanges(css: "U+110000") == nil && UnicodeRanges(css: "U+20-10") == nil && UnicodeRanges(css: "") == nil)
        #expect(ranges.intersection(UnicodeRanges([0x41...0x410])).description == "U+41-FF, U+400-410")
        #expect(NamedRanges.ranges(named: "latin")?.contains(0x2193) == true && NamedRanges.ranges(named: "latin")?.contains(0x2192) == false)
    }
}
