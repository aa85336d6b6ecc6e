import Foundation
import LarderFormat
import LarderHost
import LarderTestSupport
@testable import LarderRendering
@testable import LarderWebKit
import Testing

extension WebKitTests {
    /// The remote policy travels with every answer of both schemes, whatever the file's role or
    /// media type: any of them can be a document (an SVG or XML file in a frame runs script).
    @Suite struct SchemePolicy {
        static let files = [
            "index.html": "<!doctype html><h1>Offer</h1>",
            "art.svg": #"<svg xmlns="http://www.w3.org/2000/svg"></svg>"#,
            "feed.xml": #"<?xml version="1.0"?><feed/>"#,
            "page.xhtml": #"<html xmlns="http://www.w3.org/1999/xhtml"></html>"#,
            "style.css": "h1 { color: red }",
            "app.js": "var x = 1;",
            "data.json": "{}",
            "notes.txt": "plain",
            "pixel.png": "not really a png",
        ]

        @Test func everyBundleFileIsServedWithThePolicy() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles(Self.files)
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let paths = Self.files.keys.sorted()
            let answer = try await renderer.callAsyncFunction("""
                const out = {};
                for (const path of \(JSONValue.array(paths.map(JSONValue.string)).jsonText)) {
                  out[path] = (await fetch(path)).headers.get('content-security-policy');
                }
                return out;
                """)
            guard case .object(let headers) = answer else { Issue.record("\(answer)"); return }
            for path in paths {
                let policy = path.hasSuffix(".js") ? RemotePolicy.blockAll.workerPolicy : RemotePolicy.blockAll.contentSecurityPolicy
                #expect(headers[path] == .string(policy), "\(path)")
            }
            await renderer.stop()
        }

        /// A font (an SVG font is a document) is never shown in a frame: the navigation is refused.
        @Test func aFrameCannotShowAFont() async throws {
            let fixture = try WebKitFixture()
            let (bundle, manifest) = try fixture.installSample("paywall")
            let font = try #require(manifest.files.first { $0.role == .font })
            let url = "larder-font://sha256/\(font.digest.hex)"
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            _ = try await renderer.evaluate("const f = document.createElement('iframe'); f.src = '\(url)'; document.body.append(f); undefined")
            #expect(await eventually(within: .seconds(5)) { await renderer.blockedRequests.contains(BlockedRequest(url: url, reason: "navigation")) })
            await renderer.stop()
        }
    }
}

