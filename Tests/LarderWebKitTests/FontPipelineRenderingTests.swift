import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderTestSupport
@testable import LarderRendering
@testable import LarderWebKit
import Testing

extension WebKitTests {
    /// The font pipeline changes bytes, not pixels: each flow packed with WOFF2, one source per
    /// face and `latin` subsets renders in WebKitGTK exactly as the same flow packed with its
    /// fonts as written (`"woff2": false`); a subset that leaves out a character the page shows
    /// changes pixels, and the pack says which character and where.
    @Suite struct FontPipelineRendering {
        /// Renders an archive hidden at the phone viewport, animations stopped at their start.
        static func render(_ archive: String, _ fixture: WebKitFixture) async throws -> (PNG.Image, WebKitLoadReport) {
            let bundle = try fixture.cache.install(archiveAt: archive).bundle
            let (renderer, _) = try await fixture.startedRenderer()
            do {
                try await renderer.load(try fixture.content(bundle), visible: false)
                _ = try await renderer.evaluate("document.getAnimations().forEach((a) => { a.pause(); a.currentTime = 0; }); 0")
                let png = try await renderer.screenshot()
                let report = try #require(await renderer.lastLoad)
                await renderer.stop()
                return (try #require(PNG.decode(png)), report)
            } catch {
                await renderer.stop()
                throw error
            }
        }

        /// The folders compared: the samples, and a Font Awesome icon on a Read-the-Docs page.
        static func source(_ name: String, in scratch: String) throws -> String {
            guard name == "font-awesome+rtd" else { return sampleBundles + "/" + name }
            let folder = scratch + "/rtd-source"
            try RealWorldSource.readTheDocsTheme.prepare(at: folder)
            return folder
        }

        @Test(arguments: ["onboarding", "paywall", "legacy-prompt", "font-awesome+rtd"])
        func thePipelinesBundleRendersTheSamePixels(_ name: String) async throws {
            let fixture = try WebKitFixture()
            let source = try Self.source(name, in: fixture.root)
            let subsets =
                name == "font-awesome+rtd" ? #"{"subsets": ["latin"], "faces": {"FontAwesome": {"subsets": ["private-use"]}}}"# : nil
            let piped = try copySource(source, to: fixture.root + "/piped", fonts: subsets ?? #"{"subsets": ["latin"]}"#)
            if name == "onboarding" {  // the sample's own settings (its arrows have a subset of their own)
                try FileManager.default.removeItem(atPath: piped + "/larder.json")
                try FileManager.default.copyItem(atPath: source + "/larder.json", toPath: piped + "/larder.json")
            }
            let written = try copySource(source, to: fixture.root + "/written", fonts: #"{"woff2": false}"#)
            let pipeline = try Packer.pack(source: piped, into: fixture.root + "/out")
            let asWritten = try Packer.pack(source: written, into: fixture.root + "/out")
            #expect(pipeline.archiveSize < asWritten.archiveSize)
            #expect(!pipeline.fonts.faces.isEmpty && pipeline.fonts.faces.allSatisfy { $0.outcome != .unconverted })

            let (converted, convertedReport) = try await Self.render(pipeline.archivePath, fixture)
            let (original, _) = try await Self.render(asWritten.archivePath, fixture)
            #expect(converted.width == 430 && converted.height == 932)
            let differing = converted.differingPixels(from: original)
            print("\(name): \(differing) of \(original.pixels.count) pixels differ; archive \(asWritten.archiveSize) -> \(pipeline.archiveSize) bytes")
            #expect(differing * 1000 < original.pixels.count, "\(differing) pixels differ")
            // Every font the page loaded is WOFF2, one source per face.
            #expect(convertedReport.fonts.allSatisfy { $0.sources.count == 1 }, "\(convertedReport.fonts)")
        }

        /// Negative control: `"keepUsed": false` and only `latin` leave out the `→` of
        /// "Continue →": the engine draws it in another font, and the pack names it.
        @Test func aSubsetWithoutACharacterThePageShowsChangesPixels() async throws {
            let fixture = try WebKitFixture()
            let source = sampleBundles + "/onboarding"
            let lacking = try copySource(source, to: fixture.root + "/lacking", fonts: #"{"subsets": ["latin"], "keepUsed": false}"#)
            let written = try copySource(source, to: fixture.root + "/written", fonts: #"{"woff2": false}"#)
            let report = try Packer.pack(source: lacking, into: fixture.root + "/out")
            let warning = try #require(report.warnings.first { $0.kind == .uncoveredCharacter && $0.message.hasPrefix("U+2192") })
            #expect(warning.location?.file == "index.html" && warning.location?.line == 48)
            let (missing, _) = try await Self.render(report.archivePath, fixture)
            let (original, _) = try await Self.render(try Packer.pack(source: written, into: fixture.root + "/out").archivePath, fixture)
            let differing = missing.differingPixels(from: original)
            print("onboarding without U+2192: \(differing) pixels differ")
            #expect(differing > 0)
        }

        /// A page whose text is Latin, with `latin` and `cyrillic` subsets: ready with the
        /// Cyrillic faces `unloaded` (never requested), and the headless renderer loads the same
        /// fonts; with its Latin subset quarantined the load fails naming that font.
        @Test func cyrillicSubsetsThePageDoesNotUseStayUnloaded() async throws {
            let fixture = try WebKitFixture()
            let folder = fixture.root + "/latin-page"
            try FileManager.default.createDirectory(atPath: folder + "/fonts", withIntermediateDirectories: true)
            for font in ["Lato-Regular", "Lato-Bold"] {
                try FileManager.default.copyItem(atPath: sampleBundles + "/onboarding/fonts/\(font).ttf", toPath: folder + "/fonts/\(font).ttf")
            }
            try Data(#"{"fonts": {"subsets": ["latin", "cyrillic"]}}"#.utf8).write(to: URL(fileURLWithPath: folder + "/larder.json"))
            try Data(
                """
                <!doctype html><style>
                @font-face { font-family: "Lato"; font-weight: 400; src: url(fonts/Lato-Regular.ttf); }
                @font-face { font-family: "Lato"; font-weight: 700; src: url(fonts/Lato-Bold.ttf); }
                body { font-family: Lato, serif; } h1 { font-weight: 700; }
                </style><h1>Plan your week</h1><p>Breakfast, lunch and dinner.</p>
                """.utf8
            ).write(to: URL(fileURLWithPath: folder + "/index.html"))
            let report = try Packer.pack(source: folder, into: fixture.root + "/out")
            #expect(report.fonts.faces.map { $0.subsets.map(\.name) } == [["latin", "cyrillic"], ["latin", "cyrillic"]])
            let bundle = try fixture.cache.install(archiveAt: report.archivePath).bundle
            let manifest = try fixture.cache.manifest(bundle)
            let essential = Set(manifest.files.filter { $0.role == .font && $0.essential }.map(\.path))
            #expect(essential == ["fonts/Lato-Regular.latin.woff2", "fonts/Lato-Bold.latin.woff2"])

            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let load = try #require(await renderer.lastLoad)
            await renderer.stop()
            #expect(load.fonts.count == 4)
            let cyrillic = load.fonts.filter { $0.unicodeRange.contains("400") }
            #expect(cyrillic.count == 2 && cyrillic.allSatisfy { $0.status == "unloaded" && !$0.needed }, "\(load.fonts)")
            #expect(load.fonts.filter { $0.status == "loaded" }.count == 2)
            let url = { (path: String) in "larder-font://sha256/" + manifest.file(at: path)!.digest.hex }
            let fontRequests = Set(load.requests.map(\.url).filter { $0.hasPrefix("larder-font:") })
            #expect(fontRequests == Set(essential.map(url)))

            // The headless renderer resolves the same fonts.
            let headless = HeadlessRenderer()
            try await headless.start(bridge: RendererBridge { _ in })
            try await headless.load(try fixture.content(bundle), visible: false)
            #expect(headless.lastLoad?.fonts == essential.count)

            // A quarantined Latin subset (in a second cache: this process verified the first
            // one's objects already): not ready, naming it.
            let second = try WebKitFixture()
            _ = try second.cache.install(archiveAt: report.archivePath)
            let latin = try #require(manifest.file(at: "fonts/Lato-Bold.latin.woff2"))
            try flipFirstByte(at: second.objectPath(latin.digest))
            let (broken, _) = try await second.startedRenderer()
            let content = try second.content(bundle)
            let error = await hostError { () async throws(HostError) in try await broken.load(content, visible: false) }
            await broken.stop()
            #expect(error?.resource == url("fonts/Lato-Bold.latin.woff2"), "\(String(describing: error))")
            #expect(error?.cacheError?.code == .corruptObject)
        }

        /// A character that only a stylesheet's `::before` content shows (not in `innerText`)
        /// still makes its subset needed: the Cyrillic faces are waited for and load.
        @Test func aCharacterOnlyAPseudoElementShowsMakesItsSubsetNeeded() async throws {
            let fixture = try WebKitFixture()
            let folder = fixture.root + "/pseudo-page"
            try FileManager.default.createDirectory(atPath: folder + "/fonts", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: sampleBundles + "/onboarding/fonts/Lato-Regular.ttf", toPath: folder + "/fonts/Lato-Regular.ttf")
            try Data(#"{"fonts": {"subsets": ["latin", "cyrillic"]}}"#.utf8).write(to: URL(fileURLWithPath: folder + "/larder.json"))
            try Data(
                """
                <!doctype html><style>
                @font-face { font-family: "Lato"; src: url(fonts/Lato-Regular.ttf); }
                body { font-family: Lato, serif; } @media screen { h1::before { content: "\\416 "; } }
                </style><h1>Plan your week</h1>
                """.utf8
            ).write(to: URL(fileURLWithPath: folder + "/index.html"))
            let report = try Packer.pack(source: folder, into: fixture.root + "/out")
            let bundle = try fixture.cache.install(archiveAt: report.archivePath).bundle

            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let load = try #require(await renderer.lastLoad)
            await renderer.stop()
            let cyrillic = load.fonts.filter { $0.unicodeRange.contains("400") }
            #expect(cyrillic.count == 1 && cyrillic.allSatisfy { $0.needed && $0.status == "loaded" }, "\(load.fonts)")
        }
    }
}
