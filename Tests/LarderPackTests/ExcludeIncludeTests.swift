import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderPack

@Suite struct GlobPatternTests {
    @Test(arguments: [
        ("test", "test", true, true),
        ("test", "a/b/test", true, true),
        ("test", "a/test/x.html", false, false),
        ("test/", "a/test", false, false),
        ("test/", "a/test", true, true),
        ("*.map", "css/app.css.map", false, true),
        ("*.map", "css/app.css", false, false),
        ("/index.html", "index.html", false, true),
        ("/index.html", "a/index.html", false, false),
        ("unpacked/*.js", "unpacked/a.js", false, true),
        ("unpacked/*.js", "x/unpacked/a.js", false, false),
        ("unpacked/*.js", "unpacked/sub/a.js", false, false),
        ("unpacked/**/*.js", "unpacked/a.js", false, true),
        ("unpacked/**/*.js", "unpacked/sub/deeper/a.js", false, true),
        ("**/b.png", "a/b/c/b.png", false, true),
        ("img/?.png", "img/a.png", false, true),
        ("img/?.png", "img/ab.png", false, false),
        ("img/[ab].png", "img/b.png", false, true),
        ("img/[!ab].png", "img/b.png", false, false),
        ("img/[a-c]*.png", "img/cat.png", false, true),
        ("img/[a-c]*.png", "img/dog.png", false, false),
        ("fonts/é*", "fonts/été.woff", false, true),
    ])
    func matches(_ pattern: String, _ path: String, _ isFolder: Bool, _ expected: Bool) throws {
        #expect(try GlobPattern(pattern).matches(path, isFolder: isFolder) == expected)
    }

    @Test func aMatchingFolderCoversItsFiles() throws {
        #expect(try GlobPattern("test/").covers(file: "a/test/b/c.html"))
        #expect(try GlobPattern("jax").covers(file: "jax/output/a.js"))
        #expect(try !GlobPattern("jax/").covers(file: "unpacked/jaxx/a.js"))
    }

    @Test(arguments: ["", "/", "a//b", "./a", "a/../b", "[ab", "x[!"])
    func refusesPatternsThatCannotMatch(_ pattern: String) {
        #expect(throws: PackError.self) { try GlobPattern(pattern) }
    }
}

@Suite struct ExcludeIncludeTests {
    @Test func excludedFilesAreNeitherPackedNorChecked() throws {
        let folder = try SourceFolder([
            "index.html": "<script src=app.js></script>",
            "app.js": "",
            "test/broken.html": "<img src=BADURL.png><a href='../../../outside'>x</a>",
            "docs/notes.map": "{}",
            "larder.json": #"{"exclude": ["test/", "*.map"]}"#,
        ])
        // Something no pack could read, inside an excluded folder.
        #expect(mkfifo(folder.root + "/test/pipe", 0o644) == 0)
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.excluded == ["docs/notes.map", "test"])
        let manifest = try #require(try BundleVerifier.verify(archiveAt: report.archivePath).manifest)
        #expect(manifest.files.map(\.path) == ["app.js", "index.html"])
        #expect(report.warnings.isEmpty, "\(report.warnings)")
    }

    @Test func aReferenceToAnExcludedFileIsAnErrorThatSaysSo() throws {
        let folder = try SourceFolder([
            "index.html": "<a href=test/a.html>tests</a>",
            "test/a.html": "<p>",
            "larder.json": #"{"exclude": ["test"]}"#,
        ])
        let errors = folder.packFailure()
        #expect(errors.map(\.code) == [.missingReference])
        #expect(errors.first?.message.contains("'exclude' pattern") == true, "\(errors)")
        #expect(folder.outputFiles.isEmpty)
    }

    @Test func anExcludedEntryIsAConfigurationError() throws {
        let folder = try SourceFolder(["index.html": "<p>", "larder.json": #"{"exclude": ["*.html"]}"#])
        let errors = folder.packFailure()
        #expect(errors.map(\.code) == [.invalidConfiguration])
        #expect(errors.first?.message.contains("excluded") == true, "\(errors)")
    }

    /// MathJax-style: files a script loads by name are declared, so they are not reported,
    /// their own references are followed, and the ones marked essential are essential.
    @Test func includedFilesAreRootsAndNeverUnreferenced() throws {
        let folder = try SourceFolder([
            "index.html": "<script src=MathJax.js></script>",
            "MathJax.js": "load('config/TeX.js')",
            "config/TeX.js": "",
            "jax/output/fonts.css": "@font-face { font-family: M; src: url(../../fonts/m.woff) format('woff'); }",
            "fonts/m.woff": "M",
            "fonts/unused.woff": "U",
            "extra/readme.txt": "",
            "larder.json": #"{"include": [{"pattern": "config/*.js", "essential": true}, "jax/", "nothing/**"]}"#,
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.unreferenced == ["extra/readme.txt", "fonts/unused.woff"])
        // (fonts/m.woff is not a font: packed as written, with a warning.)
        #expect(report.warnings.map(\.kind) == [.unreferenced, .unreferenced, .unmatchedInclude, .unconvertedFont])
        #expect(report.warnings[2].message.contains("nothing/**") == true)
        let manifest = try #require(try BundleVerifier.verify(archiveAt: report.archivePath).manifest)
        #expect(manifest.files.filter(\.essential).map(\.path) == ["MathJax.js", "config/TeX.js", "index.html"])
        #expect(manifest.file(at: "fonts/m.woff")?.role == .font)
        #expect(report.rewrittenFontReferences == 1)
    }
}

@Suite struct WarningTests {
    /// Only what a page loads is a remote reference: links a user may follow are navigation.
    @Test func navigationLinksAreNotRemoteReferences() throws {
        let folder = try SourceFolder([
            "index.html": """
                <a href="https://docs.python.org/3/">docs</a><link rel="canonical" href="https://example.com/">
                <script src="https://cdn.example.com/x.js"></script><img src="//cdn.example.com/i.png">
                <iframe src="https://player.example.com/v"></iframe>
                """
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.remoteReferences.map(\.url) == ["https://cdn.example.com/x.js", "//cdn.example.com/i.png", "https://player.example.com/v"])
        #expect(report.warnings.map(\.kind) == [.remoteReference, .remoteReference, .remoteReference])
        #expect(report.warnings.first?.location?.description == "index.html:2:14")
    }

    /// A connection hint loads nothing, but the engine would connect to (or look up) the host:
    /// a remote one is a remote reference too.
    @Test func connectionHintsToRemoteHostsAreRemoteReferences() throws {
        let folder = try SourceFolder([
            "index.html": """
                <link rel="preconnect" href="https://fonts.example.com"><link rel="dns-prefetch" href="//cdn.example.com">
                <link rel="preconnect dns-prefetch" href="https://api.example.com/"><link rel="next" href="https://example.com/2">
                """
        ])
        let report = try Packer.pack(source: folder.root, into: folder.output)
        #expect(report.remoteReferences.map(\.url) == ["https://fonts.example.com", "//cdn.example.com", "https://api.example.com/"])
        #expect(report.warnings.map(\.kind) == [.remoteReference, .remoteReference, .remoteReference])
        #expect(report.warnings.first?.location?.description == "index.html:1:30")
    }

    @Test func strictRefusesOnlyWhatPagesLoad() throws {
        let linksOnly = try SourceFolder(["index.html": #"<a href="https://example.com/">x</a>"#])
        #expect(linksOnly.packFailure(strict: true).isEmpty)
        let loads = try SourceFolder(["index.html": #"<a href="https://example.com/">x</a><img src="https://example.com/a.png">"#])
        #expect(loads.packFailure(strict: true).map(\.code) == [.remoteReference])
    }
}
