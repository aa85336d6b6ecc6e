import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderPack

/// Every font source becomes `larder-font://sha256/<hex>` whatever its format, and every file
/// used as a font has the role `font`.
@Suite struct FontRewriteTests {
    static func url(_ content: String) -> String { "larder-font://sha256/" + SHA256Hasher.hash(Array(content.utf8)).hex }

    static func packed(_ report: PackReport, _ path: String) throws -> String {
        let reader = try ArchiveReader(path: report.archivePath)
        return String(decoding: try #require(try TestArchive.readAll(reader).first { $0.0 == path }).1, as: UTF8.self)
    }

    static func manifest(_ report: PackReport) throws -> Manifest {
        try #require(try BundleVerifier.verify(archiveAt: report.archivePath).manifest)
    }

    /// Font Awesome 4.7's @font-face: an .eot with a query, the IE hack, woff2/woff/ttf with
    /// queries and an SVG font with a fragment.
    @Test func rewritesEveryFormatAndDropsQueriesAndFragments() throws {
        let css = """
            @font-face {
              font-family: 'FontAwesome';
              src: url('../fonts/fa.eot?v=4.7.0');
              src: url('../fonts/fa.eot?#iefix&v=4.7.0') format('embedded-opentype'), url('../fonts/fa.woff2?v=4.7.0') format('woff2'), url(../fonts/fa.woff?v=4.7.0) format('woff'), url("../fonts/fa.ttf?v=4.7.0") format('truetype'), url('../fonts/fa.otf') format('opentype'), url('../fonts/fa.svg?v=4.7.0#fontawesomeregular') format('svg');
            }
            """
        let folder = try SourceFolder([
            "index.html": #"<link rel="stylesheet" href="css/fa.css">"#,
            "css/fa.css": css,
            "fonts/fa.eot": "EOT", "fonts/fa.woff2": "WOFF2", "fonts/fa.woff": "WOFF", "fonts/fa.ttf": "TTF", "fonts/fa.otf": "OTF",
            "fonts/fa.svg": "<svg><defs><font id='fontawesomeregular'/></defs></svg>",
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.rewrittenFontReferences == 7)
        let expected = """
            @font-face {
              font-family: 'FontAwesome';
              src: url("\(Self.url("EOT"))");
              src: url("\(Self.url("EOT"))") format('embedded-opentype'), url("\(Self.url("WOFF2"))") format('woff2'), url("\(Self.url("WOFF"))") format('woff'), url("\(Self.url("TTF"))") format('truetype'), url("\(Self.url("OTF"))") format('opentype'), url("\(Self.url("<svg><defs><font id='fontawesomeregular'/></defs></svg>"))") format('svg');
            }
            """
        #expect(try Self.packed(report, "css/fa.css") == expected)
        let manifest = try Self.manifest(report)
        for file in manifest.files where file.path.hasPrefix("fonts/") {
            #expect(file.role == .font, "\(file.path)")
            #expect(file.essential, "\(file.path)")
        }
        #expect(manifest.file(at: "fonts/fa.eot")?.mediaType == "application/vnd.ms-fontobject")
        #expect(manifest.file(at: "fonts/fa.svg")?.mediaType == "image/svg+xml")
        #expect(report.unreferenced.isEmpty)
    }

    /// A font preload with a query, a prefetch, and an HTML reference to a file that is a font
    /// only because a stylesheet uses it as one: all rewritten to the @font-face's URL.
    @Test func rewritesEveryHTMLReferenceToAFontFile() throws {
        let folder = try SourceFolder([
            "index.html": """
                <link rel="preload" as="font" href="fonts/a.woff2?v=1" crossorigin>
                <link rel="prefetch" href="fonts/b.ttf">
                <link rel="preload" href="fonts/icons.svg#i" as="image">
                <link rel="stylesheet" href="app.css">
                <img src="logo.svg">
                """,
            "app.css": "@font-face { font-family: A; src: url(fonts/a.woff2) format('woff2'), url(fonts/icons.svg#i) format('svg'); }",
            "fonts/a.woff2": "A", "fonts/b.ttf": "B", "fonts/icons.svg": "<svg/>", "logo.svg": "<svg>logo</svg>",
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(
            try Self.packed(report, "index.html") == """
                <link rel="preload" as="font" href="\(Self.url("A"))" crossorigin>
                <link rel="prefetch" href="\(Self.url("B"))">
                <link rel="preload" href="\(Self.url("<svg/>"))" as="image">
                <link rel="stylesheet" href="app.css">
                <img src="logo.svg">
                """)
        let manifest = try Self.manifest(report)
        #expect(manifest.file(at: "fonts/icons.svg")?.role == .font)
        #expect(manifest.file(at: "logo.svg")?.role == .image)
        #expect(manifest.file(at: "fonts/b.ttf")?.role == .font)
        // The packed bytes are what the manifest says (the late rewrite of index.html included).
        #expect(try BundleVerifier.verify(archiveAt: report.archivePath).isIntact)
    }

    /// An attribute with a character reference cannot be rewritten in place; it is checked
    /// like any reference and left as it is.
    @Test func leavesReferencesItCannotRewriteInPlaceAndCountsOnlyRewrites() throws {
        let folder = try SourceFolder([
            "index.html": #"<link rel="prefetch" href="fonts/a&#46;ttf"><div style="background: url(fonts/a.ttf)"></div>"#,
            "fonts/a.ttf": "A",
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.rewrittenFontReferences == 0)
        #expect(try Self.packed(report, "index.html").contains("fonts/a&#46;ttf"))
    }
}
