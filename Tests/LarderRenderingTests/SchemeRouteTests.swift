import LarderCache
import LarderFormat
@testable import LarderRendering
import Testing

/// What each `larder:`/`larder-font:` URL is routed to, decided from the URL alone.
@Suite struct SchemeRouteTests {
    static let own = String(repeating: "ab", count: 32)
    static let other = String(repeating: "cd", count: 32)
    static let font = String(repeating: "0f", count: 32)

    @Test(arguments: [
        ("larder://\(own)/index.html", SchemeRoute.file(path: "index.html")),
        ("larder://\(own)/css/base.css?v=2#top", .file(path: "css/base.css")),
        ("larder://\(own)/images/a%20b.svg", .file(path: "images/a b.svg")),
        ("larder://\(own)/caf%C3%A9.html", .file(path: "café.html")),
        ("larder://\(own)/cafe%CC%81.html", .file(path: "café.html")),  // decomposed → NFC
        ("larder-font://sha256/\(font)", .font(FontURL(digest: try! Digest(hex: font)))),
    ])
    func servesTheLoadedBundleAndFonts(_ url: String, _ route: SchemeRoute) {
        #expect(SchemeRoute.of(url, bundle: try! Digest(hex: Self.own)) == route)
    }

    @Test(arguments: [
        ("larder://\(other)/index.html", 403),  // another bundle's files
        ("larder://ABAB/index.html", 400),  // not a digest
        ("larder://\(own.uppercased())/index.html", 400),
        ("larder://\(own)/css/..%2Fmanifest.json", 400),  // '..' after decoding
        ("larder://\(own)/%2E%2E/%2E%2E/etc/passwd", 400),
        ("larder://\(own)/a//b.css", 400),
        ("larder://\(own)/", 400),
        ("larder://\(own)", 400),
        ("larder://\(own)/bad%zzescape", 400),
        ("larder://\(own)/bad%FF", 400),  // not UTF-8
        ("larder://\(own)/a%00b", 400),  // a control character
        ("larder-font://sha256/\(font.uppercased())", 400),
        ("larder-font://sha256/\(font)/x", 400),
        ("larder-font://md5/\(font)", 400),
        ("larder-font://sha256/../\(font)", 400),
        ("file:///etc/passwd", 400),
    ])
    func refusesEverythingElse(_ url: String, _ status: Int) {
        guard case .refused(let refused, let message) = SchemeRoute.of(url, bundle: try! Digest(hex: Self.own)) else {
            Issue.record("\(url) was not refused")
            return
        }
        #expect(refused == status)
        #expect(!message.isEmpty)
    }

    @Test func cacheErrorsMapToStatuses() {
        #expect(SchemeResponse.status(for: CacheError(.resourceNotFound, "x")) == 404)
        #expect(SchemeResponse.status(for: CacheError(.unknownFont, "x")) == 404)
        #expect(SchemeResponse.status(for: CacheError(.malformedFontURL, "x")) == 400)
        #expect(SchemeResponse.status(for: CacheError(.corruptObject, "x")) == 500)
        #expect(SchemeResponse.status(for: CacheError(.storage, "x")) == 500)
    }

    @Test func entryURLsArePercentEncodedPerSegment() throws {
        let bundle = try Digest(hex: Self.own)
        let url = RendererCore.url(of: "pages/a b?#.html", in: bundle)
        #expect(url == "larder://\(Self.own)/pages/a%20b%3F%23.html")
        #expect(SchemeRoute.of(url, bundle: bundle) == .file(path: "pages/a b?#.html"))
    }
}
