import Testing
@testable import LarderFormat

@Suite struct CSSScannerTests {
    func scan(_ css: String) -> [Reference] {
        let bytes = Array(css.utf8)
        return bytes.withUnsafeBufferPointer { CSSScanner.scan($0) }
    }

    /// An `@import` written inside a font face's `src` (hostile or broken CSS) is an import
    /// and is never rewritten as a font source: before, it kept the font source's rewrite range
    /// (found by the css fuzz target, in a mutated Font Awesome stylesheet).
    @Test func anImportInsideAFontSourceIsNotRewritten() {
        let references = scan("@font-face { font-family: f; src: @import url(theme.css); }")
        #expect(references.map(\.kind) == [.cssImport])
        #expect(references.first?.url == "theme.css")
        #expect(references.first?.replaceRange == nil)
    }

    @Test func findsURLsInEveryForm() {
        let css = #"""
            /* url(commented.png) */
            a { background: url(plain.png) }
            b { background: URL( "double.png?v=2#x" ) }
            c { background: url('single.png') }
            d { background: url(esc\(aped\).png) }
            e { background: url("\68 ex.png") }
            f { background: url(data:image/png;base64,AAAA) }
            """#
        #expect(scan(css).map(\.url) == ["plain.png", "double.png?v=2#x", "single.png", "esc(aped).png", "hex.png", "data:image/png;base64,AAAA"])
        #expect(scan(css).allSatisfy { $0.kind == .resource })
    }

    @Test func findsImportsWithStringsOrURLs() {
        let refs = scan(#"@import "base.css"; @import url(theme.css) screen; @IMPORT 'x.css';"#)
        #expect(refs.map(\.url) == ["base.css", "theme.css", "x.css"])
        #expect(refs.allSatisfy { $0.kind == .cssImport })
    }

    @Test func marksFontFaceSourcesWithTheirRanges() {
        let css = #"""
            @font-face {
              font-family: "Lato";
              src: url("../fonts/Lato.woff2") format("woff2"), url(../fonts/Lato.ttf) format("truetype");
            }
            .x { background: url(bg.png); }
            """#
        let refs = scan(css)
        #expect(refs.map(\.url) == ["../fonts/Lato.woff2", "../fonts/Lato.ttf", "bg.png"])
        #expect(refs.map(\.kind) == [.fontSource, .fontSource, .resource])
        let bytes = Array(css.utf8)
        let first = refs[0].replaceRange!
        #expect(String(decoding: bytes[first], as: UTF8.self) == #"url("../fonts/Lato.woff2")"#)
        #expect(refs[2].replaceRange == nil)
    }
}

@Suite struct HTMLScannerTests {
    func scan(_ html: String) -> [Reference] {
        let bytes = Array(html.utf8)
        return bytes.withUnsafeBufferPointer { HTMLScanner.scan($0) }
    }

    @Test func findsResourcesAndNavigation() {
        let html = #"""
            <!doctype html>
            <!-- <img src="commented.png"> -->
            <link rel="stylesheet" href="css/app.css"><link rel=preload href=fonts/a.ttf as=font>
            <link rel="icon" href="icon.png"><link rel="canonical" href="page.html">
            <img src='a.png' srcset="b.png 1x, c.png 2x">
            <a href="next.html?x=1&amp;y=2">next</a>
            <script src="app.js"></script>
            <script>var s = "<img src='in-script.png'>";</script>
            <div style="background: url('bg.png')"></div>
            <style>body { background: url(style-block.png) }</style>
            """#
        let refs = scan(html)
        #expect(refs.map(\.url) == ["css/app.css", "fonts/a.ttf", "icon.png", "page.html", "a.png", "b.png", "c.png", "next.html?x=1&y=2", "app.js", "bg.png", "style-block.png"])
        #expect(refs.filter { $0.kind == .navigation }.map(\.url) == ["page.html", "next.html?x=1&y=2"])
        #expect(refs.filter { $0.kind == .fontPreload }.map(\.url) == ["fonts/a.ttf"])
    }

    @Test func connectionHintsAreNeitherLoadsNorLinks() {
        let refs = scan(#"<link rel="preconnect" href="https://a.example"><link rel=DNS-Prefetch href=//b.example><link rel="preconnect stylesheet" href="c.css">"#)
        #expect(refs.map(\.kind) == [.connectionHint, .connectionHint, .resource])
        #expect(!Reference.Kind.connectionHint.loads && !Reference.Kind.navigation.loads && Reference.Kind.resource.loads)
    }

    @Test func aFontPreloadCarriesItsHrefToRewrite() {
        let html = #"<link rel="stylesheet preload" href="a.css" as="style"><link crossorigin rel="Preload" AS="Font" href="fonts/b.woff2">"#
        let refs = scan(html)
        #expect(refs.map(\.kind) == [.resource, .fontPreload])
        let range = refs[1].replaceRange.map { Array(html.utf8)[$0] }
        #expect(range.map { String(decoding: $0, as: UTF8.self) } == "fonts/b.woff2")
    }

    @Test func parsesSrcsetCandidates() {
        #expect(HTMLScanner.srcsetURLs("a.png 1x, b.png 2x").map(\.url) == ["a.png", "b.png"])
        #expect(HTMLScanner.srcsetURLs("a.png 480w,b.png 800w").map(\.url) == ["a.png", "b.png"])
        // Without whitespace a comma belongs to the URL (HTML's srcset parsing).
        #expect(HTMLScanner.srcsetURLs("a.png,b.png 2x").map(\.url) == ["a.png,b.png"])
        #expect(HTMLScanner.srcsetURLs(" one.png ").map(\.url) == ["one.png"])
    }
}

@Suite struct ReferenceResolverTests {
    @Test(arguments: [
        ("img/a.png", "index.html", ReferenceTarget.local("img/a.png")),
        ("../fonts/x.ttf", "css/app.css", .local("fonts/x.ttf")),
        ("./a.png?v=1#frag", "pages/p.html", .local("pages/a.png")),
        ("/img/a.png", "pages/p.html", .local("img/a.png")),
        ("my%20file.png", "index.html", .local("my file.png")),
        ("https://cdn.example/x.js", "index.html", .remote("https://cdn.example/x.js")),
        ("//cdn.example/x.js", "index.html", .remote("//cdn.example/x.js")),
        ("data:image/png;base64,AA", "index.html", .ignored),
        ("mailto:a@b.c", "index.html", .ignored),
        ("#top", "index.html", .ignored),
        ("", "index.html", .ignored),
        ("../x.png", "index.html", .escaping),
        ("a/../../x.png", "css/app.css", .local("x.png")),
        ("a/../../../x.png", "css/app.css", .escaping),
        ("  img/a.png\n", "index.html", .local("img/a.png")),
        ("\u{A0}img/a.png\u{2028}", "index.html", .local("img/a.png")),
        (" ", "index.html", .ignored),
        ("cafe\u{301}.png", "index.html", .local("caf\u{E9}.png")),
        ("cafe%CC%81.png", "index.html", .local("caf\u{E9}.png")),
        ("caf%C3%A9.png", "index.html", .local("caf\u{E9}.png")),
        // Decoded as strictly as the renderers decode `larder:` URLs: what they refuse, the
        // packer refuses (it was left undecoded, and then refused at render time).
        ("100%.png", "index.html", .malformed("malformed percent-encoding in the path: a '%' must start two hex digits")),
        ("a%FF.png", "index.html", .malformed("malformed percent-encoding in the path: the escapes do not decode to UTF-8")),
        ("larder-font://sha256/../x", "index.html", .malformed(
            "not a Larder font URL: the path must be a single digest; expected larder-font://sha256/<64 lowercase hex>")),
    ])
    func resolves(_ url: String, _ document: String, _ expected: ReferenceTarget) {
        #expect(ReferenceResolver.resolve(url, from: document) == expected)
    }
}

/// Offsets stay those of the document's bytes when a value holds invalid UTF-8 (a fuzzer found
/// `srcset` candidates reported after the replacement characters, at the wrong column).
@Suite struct ScannerOffsetTests {
    @Test func aSrcsetAfterInvalidUTF8IsReportedAtItsOwnBytes() {
        var bytes = Array(#"<img srcset="x"#.utf8) + [0xFF, 0xFE] + Array(#".png 1x, second.png 2x">"#.utf8)
        let references = bytes.withUnsafeBufferPointer { HTMLScanner.scan($0) }
        let second = references.first { $0.url == "second.png" }
        // Not exact any more: reported at the attribute's value, which is where it really starts.
        let valueStart = Array(#"<img srcset=""#.utf8).count
        #expect(second?.offset == valueStart)
        // Valid text keeps each candidate's own offset.
        bytes = Array(#"<img srcset="é.png 1x, second.png 2x">"#.utf8)
        let exact = bytes.withUnsafeBufferPointer { HTMLScanner.scan($0) }
        guard let offset = exact.first(where: { $0.url == "second.png" })?.offset else {
            Issue.record("second.png was not found")
            return
        }
        #expect(Array(bytes[offset..<offset + 10]) == Array("second.png".utf8))
    }
}
