import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// A load that cannot be ready fails naming the resource.
    @Suite struct FailureNaming {
        /// Loads `bundle` hidden in a new renderer and returns the error.
        static func failedLoad(_ fixture: WebKitFixture, _ bundle: Digest) async throws -> HostError? {
            let (renderer, _) = try await fixture.startedRenderer()
            let content = try fixture.content(bundle)
            let error = await hostError { () async throws(HostError) in try await renderer.load(content, visible: false) }
            #expect(await renderer.state == .started)
            #expect(await renderer.lastLoad == nil)
            let show = await hostError { () async throws(HostError) in
                try await renderer.show(PresentationSession(id: "s", journey: "j", revision: 1, bundle: bundle))
            }
            #expect(show?.message.contains("nothing loaded") == true)
            await renderer.stop()
            return error
        }

        @Test(arguments: ["quarantined", "missing"])
        func aBrokenFontObjectFailsTheLoadNamingThatFont(_ how: String) async throws {
            let fixture = try WebKitFixture()
            let (bundle, manifest) = try fixture.installSample("paywall")
            let font = try #require(manifest.file(at: "fonts/FiraCode-SemiBold.latin.woff2"))
            if how == "missing" {
                try FileManager.default.removeItem(atPath: fixture.objectPath(font.digest))
            } else {
                try flipFirstByte(at: fixture.objectPath(font.digest))
            }

            let error = try #require(try await Self.failedLoad(fixture, bundle))

            #expect(error.code == .renderer)
            #expect(error.resource == "larder-font://sha256/\(font.digest.hex)")
            #expect(error.digest == font.digest)
            #expect(error.cacheError?.code == .corruptObject)
            #expect(error.message.contains("cannot resolve the font"))
            // The cache quarantined it, as it does for every corrupt object.
            #expect(FileManager.default.fileExists(atPath: fixture.root + "/cache/quarantine/" + font.digest.hex) == (how == "quarantined"))
            #expect(try fixture.cache.bundle(bundle)?.complete == false)
        }

        @Test func aFontNoBundleHasFailsTheLoadNamingItsURL() async throws {
            let fixture = try WebKitFixture()
            let unknown = "larder-font://sha256/" + String(repeating: "7e", count: 32)
            let (bundle, _) = try fixture.installFiles([
                "index.html": #"<!doctype html><link rel="stylesheet" href="style.css"><h1>Hello</h1>"#,
                "style.css": "@font-face { font-family: Gone; src: url(\(unknown)); } h1 { font-family: Gone, serif; }",
            ])
            let error = try #require(try await Self.failedLoad(fixture, bundle))
            #expect(error.resource == unknown)
            #expect(error.cacheError?.code == .unknownFont)
        }

        @Test func aMissingEssentialFileFailsTheLoadNamingIt() async throws {
            let fixture = try WebKitFixture()
            let (bundle, manifest) = try fixture.installSample("onboarding")
            let css = try #require(manifest.file(at: "css/base.css"))
            try FileManager.default.removeItem(atPath: fixture.objectPath(css.digest))
            let error = try #require(try await Self.failedLoad(fixture, bundle))
            #expect(error.resource == "css/base.css")
            #expect(error.digest == css.digest)
            #expect(error.cacheError?.code == .corruptObject)
        }

        @Test func aScriptErrorAtLoadFailsTheLoadNamingTheScript() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles([
                "index.html": #"<!doctype html><script src="js/app.js"></script><h1>Hello</h1>"#,
                "js/app.js": "var ready = true;\nthrow new TypeError('the flow is broken');\n",
            ])
            let error = try #require(try await Self.failedLoad(fixture, bundle))
            #expect(error.resource == "js/app.js")
            #expect(error.message.contains("the flow is broken"))
            #expect(error.message.contains("js/app.js:2:"))
        }

        @Test func aLoadThatNeverFinishesFailsWithinTheTimeout() async throws {
            let fixture = try WebKitFixture()
            // A script that never returns: the load never finishes.
            let (bundle, _) = try fixture.installFiles(["index.html": "<!doctype html><h1>Hello</h1><script>while (true) {}</script>"])
            let (renderer, _) = try await fixture.startedRenderer(.init(loadTimeout: .milliseconds(1500)))
            let content = try fixture.content(bundle)
            let started = ContinuousClock.now
            let error = await hostError { () async throws(HostError) in try await renderer.load(content, visible: false) }
            #expect(ContinuousClock.now - started < .seconds(5))
            #expect(error?.code == .renderer)
            #expect(error?.message.contains("not ready within") == true, "\(String(describing: error))")
            await renderer.unload()  // ends the spinning web process
            await renderer.stop()
        }
    }
}
