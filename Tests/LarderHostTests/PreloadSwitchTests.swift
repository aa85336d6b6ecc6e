import Foundation
import LarderHost
import LarderTestSupport
import Testing

/// The preload switch [seed 004: "preloadMedia: override the configured media preloading for
/// this session. Defaults to the value set in Configuration", "isMediaPreloaded: true once
/// media preloading has finished (or was disabled)"; seed 000: "direct presentation ... waits to
/// initialize the renderer until the Journey is visible"]: per configuration and per
/// presentation; off is direct presentation, the content loading only when shown.
@Suite("Preload switch")
struct PreloadSwitchTests {
    @Test("Preload off in the configuration: nothing loads hidden, progress reports done, the content loads when shown")
    func offInTheConfiguration() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        var configuration = fixture.configuration()
        configuration.preload = false
        let host = try fixture.host(renderer, configuration: configuration)

        let prepared = try await host.prepare()

        #expect(prepared.preloaded == false)
        #expect(renderer.record.loads.isEmpty, "nothing loaded ahead")
        #expect(await host.readiness == .ready(prepared))
        var progress = await host.progressUpdates().makeAsyncIterator()
        #expect(await progress.next() == 1, "preparation reports its progress done")
        let session = try await host.present()
        #expect(renderer.record.loads == [true] && renderer.record.shown == [session])
        await host.dismiss()
        #expect(renderer.record.unloads == 1, "dismissed: nothing stays loaded")
        await host.dispose()
    }

    @Test("A presentation's switch overrides the configuration's, either way", arguments: [true, false])
    func perPresentation(configured: Bool) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        var configuration = fixture.configuration()
        configuration.preload = configured
        let host = try fixture.host(renderer, configuration: configuration)
        try await host.prepare()
        #expect(renderer.record.loads == (configured ? [false] : []))

        let session = try await host.present(preload: !configured)

        // Off: loaded visible at once, over what was loaded hidden. On: loaded hidden first.
        #expect(renderer.record.loads == (configured ? [false, true] : [false]))
        #expect(renderer.record.shown == [session])
        await host.dismiss()
        // The next presentation follows the configuration again: on, the content reset hidden
        // after the dismissal is shown as it is; off, it loads visible.
        _ = try await host.present()
        #expect(renderer.record.loads == [false, true])
        #expect(renderer.record.resets == (configured ? 1 : 0) && renderer.record.unloads == (configured ? 0 : 1))
        await host.dispose()
    }
}
