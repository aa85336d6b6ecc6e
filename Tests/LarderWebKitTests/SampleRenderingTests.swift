import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderTestSupport
@testable import LarderRendering
@testable import LarderWebKit
import Testing

extension WebKitTests {
    /// The samples render in the engine with their own fonts, from the cache.
    @Suite struct SampleRendering {
        /// The widths of the page's text, one per text element (a Range over its contents, so
        /// the text's own extent, not its box's), and of the page's title set in each font URL
        /// loaded under a family name no system font has (`monospace` otherwise).
        static func measureText(fonts: [String]) -> String {
            let urls = JSONValue.array(fonts.map(JSONValue.string)).jsonText
            return """
                const page = Array.from(document.querySelectorAll("h1, h2, p, span, a, button, li, label, small"))
                  .map((element) => { const range = document.createRange(); range.selectNodeContents(element);
                                       return Math.round(range.getBoundingClientRect().width * 100) / 100; });
                const probe = document.createElement("span");
                probe.style.cssText = "position:absolute;white-space:nowrap;font-size:40px";
                probe.textContent = document.title;
                document.body.appendChild(probe);
                const probes = [];
                for (const [index, url] of \(urls).entries()) {
                  const face = new FontFace("LarderProbe" + index, `url("${url}")`);
                  try { await face.load(); document.fonts.add(face); } catch (error) { }
                  probe.style.fontFamily = `LarderProbe${index}, monospace`;
                  probes.push(Math.round(probe.getBoundingClientRect().width * 100) / 100);
                }
                probe.remove();
                return { page, probes };
                """
        }

        /// (Onboarding's two Lato faces have a subset of their own for the arrows its text uses.)
        @Test(arguments: [("onboarding", 5), ("paywall", 2), ("legacy-prompt", 1)])
        func eachSampleRendersWithEveryFontFaceLoaded(_ sample: String, _ faces: Int) async throws {
            let fixture = try WebKitFixture()
            let (bundle, manifest) = try fixture.installSample(sample)
            let (renderer, _) = try await fixture.startedRenderer()
            defer { Task { await renderer.stop() } }

            try await renderer.load(try fixture.content(bundle), visible: false)

            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            let report = try #require(await renderer.lastLoad)
            #expect(report.fonts.count == faces)
            #expect(report.fonts.allSatisfy { $0.status == "loaded" }, "\(report.fonts)")
            #expect(report.fonts.allSatisfy { $0.sources.allSatisfy { $0.hasPrefix("larder-font://sha256/") } })
            #expect(report.requests.allSatisfy { $0.status == 200 }, "\(report.requests)")
            #expect(report.blocked.isEmpty)
            // The entry and every font the page names came through the schemes.
            let served = Set(report.requests.map(\.url))
            #expect(served.contains("larder://\(bundle.hex)/\(manifest.entry)"))
            for font in report.fonts { #expect(font.sources.allSatisfy(served.contains)) }
            // Each font comes once, by digest: a preload names the same URL (never the file's path).
            #expect(!report.requests.contains { $0.url.hasSuffix(".ttf") }, "\(report.requests.map(\.url))")
            #expect(report.requests.filter { $0.url.hasPrefix("larder-font:") }.count == faces)
            #expect(try await renderer.evaluate("document.visibilityState") == .string("hidden"))
            #expect(try await renderer.evaluate("innerWidth") == .int(430))
        }

        @Test(arguments: ["onboarding", "paywall", "legacy-prompt"])
        func textMeasuredWithTheFontsDiffersFromThePageWithoutThem(_ sample: String) async throws {
            let fixture = try WebKitFixture()
            let (bundle, manifest) = try fixture.installSample(sample)
            let fonts = manifest.files.filter { $0.role == .font }
            let urls = fonts.map { "larder-font://sha256/\($0.digest.hex)" }
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let withFonts = try await renderer.callAsyncFunction(Self.measureText(fonts: urls))
            await renderer.stop()

            // The same bundle in a second cache whose font objects are corrupt: the font scheme
            // answers errors (and quarantines them), the load fails naming a font, and the page
            // stays in the view as it rendered.
            let broken = try WebKitFixture()
            let (same, _) = try broken.installSample(sample)
            #expect(same == bundle)
            for font in fonts { try flipFirstByte(at: broken.objectPath(font.digest)) }
            let (control, _) = try await broken.startedRenderer()
            let content = try broken.content(same)
            let error = await hostError { () async throws(HostError) in try await control.load(content, visible: false) }
            #expect(error?.cacheError?.code == .corruptObject)
            let without = try await control.callAsyncFunction(Self.measureText(fonts: urls))
            await control.stop()

            guard case .object(let measured) = withFonts, case .object(let fallback) = without,
                case .array(let page) = measured["page"], case .array(let probes) = measured["probes"]
            else {
                Issue.record("unexpected measurements: \(withFonts) \(without)")
                return
            }
            #expect(page.count > 3)
            #expect(probes.count == fonts.count)
            #expect(measured["probes"] != fallback["probes"], "each font URL measures the same loaded or failed")
            // System fonts by file name (/usr/share/fonts/<format>/<family>/<file>).
            var systemFonts: [String: [String]] = [:]
            for path in FileManager.default.enumerator(atPath: "/usr/share/fonts")?.allObjects as? [String] ?? [] {
                systemFonts[(path as NSString).lastPathComponent, default: []].append("/usr/share/fonts/" + path)
            }
            // The packed fonts are subsets of the sample's TTFs (fonts/Lato-Regular.latin.woff2 of
            // fonts/Lato-Regular.ttf): compare those sources with the system's files.
            let systemCopies = fonts.filter { font in
                let name = String((font.path as NSString).lastPathComponent.prefix { $0 != "." }) + ".ttf"
                let source = FileManager.default.contents(atPath: sampleBundles + "/\(sample)/fonts/" + name).map { SHA256Hasher.hash([UInt8]($0)) }
                return (systemFonts[name] ?? []).contains { path in
                    FileManager.default.contents(atPath: path).map { SHA256Hasher.hash([UInt8]($0)) == source } ?? false
                }
            }
            if systemCopies.count == fonts.count {
                // legacy-prompt ships DejaVu Sans, which this machine also has, byte for byte: when
                // the bundle's copy fails, WebKit falls back to the local font of the same family,
                // so the page's own text cannot tell them apart (the probes above can).
                #expect(measured["page"] == fallback["page"])
            } else if !systemCopies.isEmpty {
                // Some of them only (Lato, from Debian's fonts-lato, which sphinx-rtd-theme-common
                // of the real-world packing tests brings): whether the page's text differs depends
                // on which text uses which font; the probes above tell each font apart.
            } else {
                #expect(measured["page"] != fallback["page"], "the page's text measures the same with and without its fonts")
            }
        }
    }
}
