import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderPublish
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// Issue 21, item 1, in the web engine: a revision published while the onboarding flow is
    /// open is staged, and the open flow keeps every file it has not loaded yet (the second
    /// screen and its images), whether the refresh that dropped its bundle from the scope ran in
    /// this process or in another one sharing the cache. Once the flow is dismissed (its last
    /// lease ends) the old bundle goes.
    @Suite struct StagedRefresh {
        static let key = "pk_test"

        /// An origin folder served over HTTP on 127.0.0.1, a cache, and the onboarding sample
        /// published as revision 1.
        final class World: @unchecked Sendable {
            let fixture: WebKitFixture
            let server: FaultOrigin
            let onboarding: Digest
            var origin: URL { URL(string: "http://127.0.0.1:\(server.port)/")! }

            init() throws {
                fixture = try WebKitFixture()
                let folder = fixture.root + "/origin"
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                server = try FaultOrigin { _ in .file(root: folder) }
                onboarding = try Self.publish("onboarding", root: fixture.root)
            }

            deinit { server.stop() }

            /// Packs a sample and points the journey at it (the next revision).
            @discardableResult
            static func publish(_ sample: String, root: String) throws -> Digest {
                let archive = try Packer.pack(source: sampleBundles + "/" + sample, into: root + "/packed").archivePath
                let report = try OriginPublisher.publish(
                    archives: [archive], to: root + "/origin", journey: JourneyPublication(id: "onboarding", key: StagedRefresh.key))
                return try #require(report.journey).bundle
            }

            func host(_ renderer: any JourneyRenderer, storage: String) throws -> JourneyHost {
                try JourneyHost(
                    configuration: StagedRefresh.configuration(origin), cache: fixture.cache, renderer: renderer,
                    storage: fixture.root + "/" + storage, coordinator: PresentationCoordinator())
            }

            /// The stored object file of the onboarding sample's file at `path`.
            func objectFile(_ path: String) throws -> String {
                fixture.objectPath(try #require(try fixture.cache.manifest(onboarding).file(at: path)).digest)
            }
        }

        /// No test here is about the deadlines: they are generous and scaled (see `testTimeScale`).
        static func configuration(_ origin: URL) -> JourneyConfiguration {
            JourneyConfiguration(
                publishableKey: key, journeyID: "onboarding", origin: origin, fetchDeadline: .seconds(30).scaledForTests,
                presentationDeadline: .seconds(60).scaledForTests)
        }

        /// Follows the first screen's Continue link and reports the second screen once loaded:
        /// each image with whether it decoded, and whether every font face loads.
        static func continueToTheSecondScreen(_ renderer: WebKitRenderer, bundle: Digest) async throws -> JSONValue? {
            _ = try await renderer.evaluate("document.querySelector('a.button[href=\"screen-2.html\"]').click()")
            let arrived = await within(.seconds(10).scaledForTests) {
                let address = try? await renderer.evaluate("location.href + ' ' + document.readyState")
                return address == .string("larder://\(bundle.hex)/screen-2.html complete")
            }
            guard arrived else { return nil }
            return try await renderer.callAsyncFunction(
                """
                const images = await Promise.all(Array.from(document.images).map(async (image) => {
                  try { await image.decode(); } catch (error) { }
                  return [image.getAttribute("src"), image.complete && image.naturalWidth > 0];
                }));
                // Every face the stylesheet declares, loaded now (the page loads only those it uses).
                const loads = await Promise.all(Array.from(document.fonts).map((face) => face.load().then(() => true, () => false)));
                const fonts = loads.length > 0 && loads.every((loaded) => loaded);
                return { images, fonts };
                """)
        }

        /// What the second screen must show: its two images decoded, every font loaded.
        static func expectSecondScreen(_ report: JSONValue?) {
            guard case .object(let fields)? = report else {
                Issue.record("the second screen did not load: \(String(describing: report))")
                return
            }
            #expect(fields["images"] == .array([.array([.string("images/app-icon.png"), .bool(true)]), .array([.string("images/list.svg"), .bool(true)])]))
            #expect(fields["fonts"] == .bool(true))
        }

        @Test func theOpenFlowKeepsItsFilesWhenARefreshInThisProcessStagesANewRevision() async throws {
            let world = try World()
            let renderer = WebKitRenderer(configuration: WebKitFixture.configuration)
            let host = try world.host(renderer, storage: "host")
            let session = try await host.present()
            #expect(session.bundle == world.onboarding)
            let screen = try world.objectFile("screen-2.html")

            let paywall = try World.publish("paywall", root: world.fixture.root)
            await host.refresh()
            let timeline = await host.timeline()
            #expect(timeline.contains { $0.kind == .staged }, "\(timeline)")

            Self.expectSecondScreen(try await Self.continueToTheSecondScreen(renderer, bundle: world.onboarding))

            await host.dismiss()
            #expect(await within(.seconds(10).scaledForTests) { (try? world.fixture.cache.bundle(world.onboarding)) == .some(nil) })
            #expect(!FileManager.default.fileExists(atPath: screen))
            #expect(try world.fixture.cache.bundle(paywall) != nil)
            await host.dispose()
        }

        @Test func theOpenFlowKeepsItsFilesWhenAnotherProcessTakesTheNewRevision() async throws {
            let world = try World()
            let renderer = WebKitRenderer(configuration: WebKitFixture.configuration)
            let host = try world.host(renderer, storage: "host")
            _ = try await host.present()
            let screen = try world.objectFile("screen-2.html")

            let paywall = try World.publish("paywall", root: world.fixture.root)
            let cache = world.fixture.root + "/cache"
            let root = world.fixture.root
            let origin = world.origin
            // Another app process on the same cache prepares the journey: it takes revision 2
            // and its scope keeps only that bundle.
            await #expect(processExitsWith: .success) { [cache = cache as String, root = root as String, origin = origin as URL] in
                let other = try JourneyHost(
                    configuration: StagedRefresh.configuration(origin), cache: try LarderCache(at: cache), renderer: HeadlessRenderer(),
                    storage: root + "/other-host")
                guard try await other.prepare().revision == 2 else { exit(5) }
                await other.dispose()
            }
            #expect(try world.fixture.cache.bundle(paywall) != nil)

            Self.expectSecondScreen(try await Self.continueToTheSecondScreen(renderer, bundle: world.onboarding))

            // This host hears of revision 2 too; dismissing the open flow ends the last lease.
            await host.refresh()
            await host.dismiss()
            #expect(await within(.seconds(10).scaledForTests) { (try? world.fixture.cache.bundle(world.onboarding)) == .some(nil) })
            #expect(!FileManager.default.fileExists(atPath: screen))
            await host.dispose()
        }
    }
}
