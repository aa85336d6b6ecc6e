import Foundation
import LarderFormat
import LarderHost
import LarderPack
import LarderSystem
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// The web process lives no longer than its renderer wants it, has a memory limit, and when
    /// it ends by itself the host hears of it and recovers.
    @Suite struct WebProcessLifetime {
        @Test func stopAndUnloadEndTheWebProcessAtOnce() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles(["index.html": "<!doctype html><h1>Offer</h1>"])
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let first = WebProcesses.running()
            #expect(first.count == 1, "\(first)")
            await renderer.unload()
            #expect(await eventually(within: .seconds(2)) { first.allSatisfy { !ProcessTable.isRunning($0) } })
            try await renderer.load(try fixture.content(bundle), visible: false)
            let second = WebProcesses.running()
            #expect(second.count == 1 && second != first, "\(second)")
            await renderer.stop()
            #expect(await eventually(within: .seconds(2)) { second.allSatisfy { !ProcessTable.isRunning($0) } })
        }

        @Test func theWebProcessRunsInASandboxWithoutANetworkOfItsOwn() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installFiles(["index.html": "<!doctype html><h1>Offer</h1>"])
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            let web = try #require(WebProcesses.running().first)
            // bubblewrap stands between this process and the web process, which has its own
            // network namespace (only a loopback device, down).
            #expect(web.parent != getpid())
            let own = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
            let its = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(web.pid)/ns/net")
            #expect(own != its)
            await renderer.stop()
        }

        @Test func aWebProcessOverItsMemoryLimitIsEndedAndReported() async throws {
            let fixture = try WebKitFixture()
            // Grows by 50 MB every 100 ms once loaded, off the load: only the limit stops it.
            let (bundle, _) = try fixture.installFiles([
                "index.html": """
                    <!doctype html><h1>Offer</h1>
                    <script>
                    const kept = [];
                    addEventListener('load', () => setInterval(() => kept.push(new Uint8Array(50 << 20).fill(7)), 100));
                    </script>
                    """
            ])
            let (renderer, inbox) = try await fixture.startedRenderer(.init(webProcessMemoryLimit: 300))
            try await renderer.load(try fixture.content(bundle), visible: false)
            let web = try #require(WebProcesses.running().first)
            #expect(await eventually(within: .seconds(20)) { !inbox.events.isEmpty }, "\(inbox.events)")
            #expect(inbox.events.first.map { if case .terminated(let reason) = $0 { reason.contains("memory limit (300 MiB)") } else { false } } == true, "\(inbox.events)")
            #expect(await eventually(within: .seconds(2)) { !ProcessTable.isRunning(web) })
            #expect(await renderer.state == .started)
            #expect(await renderer.terminations == 1)
            await renderer.stop()
        }

        @Test func aKilledWebProcessIsReportedToTheHostWhichLoadsAgain() async throws {
            let fixture = try WebKitFixture()
            let archive = try Packer.pack(source: sampleBundles + "/onboarding", into: fixture.root + "/packed").archivePath
            let renderer = WebKitRenderer(configuration: WebKitFixture.configuration)
            let host = try JourneyHost(
                configuration: JourneyConfiguration(
                    publishableKey: "pk_test", journeyID: "onboarding", origin: URL(string: "http://127.0.0.1:1/")!, embeddedDefault: archive,
                    presentationDeadline: .seconds(60).scaledForTests),
                cache: fixture.cache, renderer: renderer, storage: fixture.root + "/host", coordinator: PresentationCoordinator())
            let prepared = try await host.prepare()
            let web = try #require(WebProcesses.running().first)

            kill(web.pid, SIGKILL)

            #expect(await eventually(within: .seconds(5)) { await host.readiness == .unloaded(prepared) })
            #expect(await host.timeline().contains { $0.kind == .rendererTerminated })
            #expect(await renderer.state == .started)
            // The next preparation loads it again, in a new web process.
            _ = try await host.prepare()
            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            #expect(await renderer.loads == 2)
            let session = try await host.present()
            #expect(await renderer.shownSessions == [session.id])
            await host.dispose()
        }
    }
}
