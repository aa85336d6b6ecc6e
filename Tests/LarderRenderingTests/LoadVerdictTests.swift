import LarderFormat
import LarderHost
@testable import LarderRendering
import Testing

/// The readiness answer is read strictly, and the first thing wrong names the load's error.
@Suite struct LoadVerdictTests {
    static let bundle = try! Digest(hex: String(repeating: "ab", count: 32))
    static let entry = "larder://\(String(repeating: "ab", count: 32))/index.html"
    static let font = "larder-font://sha256/" + String(repeating: "0f", count: 32)
    static let cyrillic = "larder-font://sha256/" + String(repeating: "1e", count: 32)

    static func answer(href: String = entry, faces: String = #"[{"family":"\"Open Sans\"","weight":"400","style":"normal","range":"","status":"loaded","needed":true}]"#, errors: String = "[]") throws -> PageReadiness {
        let json = """
            {"href":"\(href)","visibility":"hidden","faces":\(faces),
             "rules":[{"family":"\\"Open Sans\\"","weight":"400","style":"","range":"","src":"url(\\"\(font)\\") format(\\"truetype\\")"},
                      {"family":"\\"Open Sans\\"","weight":"400","style":"","range":"U+400-45F","src":"url(\\"\(cyrillic)\\") format(\\"woff2\\")"}],
             "errors":\(errors),"blocked":[{"id":"f1:2","url":"https://example.invalid/x","directive":"connect-src"}],
             "hints":[{"id":"f1:3","rel":"preconnect","url":"https://example.invalid/"},{"id":"f1:4","rel":"next","url":"https://example.invalid/2"}]}
            """
        return try PageReadiness(json: try JSONValue.parse(Array(json.utf8)))
    }

    @Test func readsFacesWithTheirSources() throws {
        let readiness = try Self.answer()
        #expect(
            readiness.fonts == [
                FontFaceReport(family: "Open Sans", weight: "400", style: "normal", status: "loaded", sources: [Self.font], unicodeRange: "", needed: true)
            ])
        #expect(readiness.blocked.map(\.value) == [BlockedRequest(url: "https://example.invalid/x", reason: "connect-src")])
        #expect(readiness.hints.map(\.value) == [BlockedRequest(url: "https://example.invalid/", reason: "preconnect")])
        #expect(LoadVerdict.failure(of: readiness, loading: Self.entry, requests: [], bundle: Self.bundle) == nil)
    }

    @Test func aFaceThatIsNotLoadedNamesItsSource() throws {
        let readiness = try Self.answer(faces: #"[{"family":"Open Sans","weight":"400","style":"normal","range":"","status":"error","needed":true}]"#)
        let failure = try #require(LoadVerdict.failure(of: readiness, loading: Self.entry, requests: [], bundle: Self.bundle))
        #expect(failure.code == .renderer)
        #expect(failure.resource == Self.font)
        #expect(failure.message.contains("'Open Sans'") && failure.message.contains("'error'"))
    }

    /// A `unicode-range` subset the rendered text does not use stays `unloaded` and is not a
    /// failure; one it uses (or the manifest marks essential) must be loaded; a face still
    /// loading or failed is never ready.
    @Test(arguments: [
        ("unloaded", false, nil), ("loaded", false, nil), ("unloaded", true, "unloaded"), ("loading", false, "loading"),
        ("error", false, "error"),
    ] as [(String, Bool, String?)])
    func subsetsThePageDoesNotUseMayStayUnloaded(status: String, needed: Bool, failing: String?) throws {
        let faces = #"[{"family":"\"Open Sans\"","weight":"400","style":"normal","range":"","status":"loaded","needed":true},"#
            + #"{"family":"\"Open Sans\"","weight":"400","style":"normal","range":"U+400-45F","status":"\#(status)","needed":\#(needed)}]"#
        let readiness = try Self.answer(faces: faces)
        #expect(readiness.fonts.map(\.sources) == [[Self.font], [Self.cyrillic]])
        #expect(readiness.fonts[1].unicodeRange == "U+400-45F")
        let failure = LoadVerdict.failure(of: readiness, loading: Self.entry, requests: [], bundle: Self.bundle)
        if let failing {
            #expect(failure?.resource == Self.cyrillic)
            #expect(failure?.message.contains("'\(failing)'") == true)
        } else {
            #expect(failure == nil)
        }
    }

    @Test func aFailedEssentialRequestComesFirst() throws {
        let readiness = try Self.answer(faces: #"[{"family":"Open Sans","weight":"400","style":"normal","range":"","status":"error","needed":true}]"#)
        let served = HostError(.renderer, "cannot resolve the font", resource: Self.font)
        let requests = [
            AnsweredRequest(record: ServedRequest(url: Self.entry + "x", status: 404, bytes: 0), failure: HostError(.renderer, "no"), essential: false),
            AnsweredRequest(record: ServedRequest(url: Self.font, status: 500, bytes: 0), failure: served, essential: true),
        ]
        let failure = try #require(LoadVerdict.failure(of: readiness, loading: Self.entry, requests: requests, bundle: Self.bundle))
        #expect(failure.message == "cannot resolve the font")
    }

    @Test func aNonEssentialFailureDoesNotFailTheLoad() throws {
        let requests = [AnsweredRequest(record: ServedRequest(url: "x", status: 404, bytes: 0), failure: HostError(.renderer, "no"), essential: false)]
        #expect(LoadVerdict.failure(of: try Self.answer(), loading: Self.entry, requests: requests, bundle: Self.bundle) == nil)
    }

    @Test func aScriptErrorNamesTheScriptByBundlePath() throws {
        let errors = #"[{"id":"f1:1","message":"Error: boom","source":"\#(Self.entry.replacingOccurrences(of: "index.html", with: "js/app.js"))","line":3,"column":9}]"#
        let failure = try #require(LoadVerdict.failure(of: try Self.answer(errors: errors), loading: Self.entry, requests: [], bundle: Self.bundle))
        #expect(failure.resource == "js/app.js")
        #expect(failure.message.contains("Error: boom") && failure.message.contains("js/app.js:3:9"))
    }

    @Test func aPageThatLeftDuringTheLoadIsNotReady() throws {
        let failure = try #require(
            LoadVerdict.failure(of: try Self.answer(href: "about:blank"), loading: Self.entry, requests: [], bundle: Self.bundle))
        #expect(failure.resource == "index.html")
        // A fragment of its own is not leaving.
        #expect(LoadVerdict.failure(of: try Self.answer(href: Self.entry + "#offer"), loading: Self.entry, requests: [], bundle: Self.bundle) == nil)
    }

    @Test(arguments: [
        "[]", #"{"href":1}"#, #"{"href":"x","visibility":"hidden","faces":[1],"rules":[],"errors":[],"blocked":[]}"#,
        #"{"href":"x","visibility":"hidden","faces":[],"rules":[],"errors":[{"id":1}],"blocked":[],"hints":[]}"#,
        #"{"href":"x","visibility":"hidden","faces":[],"rules":[],"errors":[],"blocked":[]}"#,  // no hints
    ])
    func malformedAnswersAreErrors(_ json: String) throws {
        #expect(throws: HostError.self) { try PageReadiness(json: try JSONValue.parse(Array(json.utf8))) }
    }

    @Test func sourcesAreReadFromSerialisedSrcLists() {
        #expect(PageReadiness.urls(in: #"url("a.woff2") format("woff2"), url('b.ttf'), url(c.otf)"#) == ["a.woff2", "b.ttf", "c.otf"])
        #expect(PageReadiness.unquoted("\"Fira Code\"") == "Fira Code")
        #expect(PageReadiness.unquoted("Lato") == "Lato")
    }
}
