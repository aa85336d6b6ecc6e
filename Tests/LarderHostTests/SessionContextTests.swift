import Foundation
import LarderHost
import LarderTestSupport
import Testing

/// `present(context:)` adds context to the captures of that session only, over the host's.
@Suite("Per-session context")
struct SessionContextTests {
    @Test("A session's context is added to its captures, over the host's; the next session has its own")
    func sessionContext() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.capture = CaptureSettings(context: ["app": "1.0", "placement": "default"])
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer, configuration: configuration)
        let first = try await host.present(context: ["placement": "settings", "campaign": "spring"])
        renderer.post(.capture(event: "a", body: Array("1".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().count) == 2 })
        await host.dismiss()
        let second = try await host.present()
        renderer.post(.capture(event: "b", body: Array("2".utf8)))
        // Dismissal delivers what was queued: the events are in the sink or still queued.
        #expect(await eventually { (try? await host.pendingCaptures().count).map { $0 + fixture.sink.accepted.count } == 4 })

        let events = fixture.sink.accepted + (try await host.pendingCaptures())
        let withSession = ["app": "1.0", "placement": "settings", "campaign": "spring"]
        #expect(events.filter { $0.session == first.id }.map(\.context) == [withSession, withSession])
        #expect(events.filter { $0.session == second.id }.map(\.context) == [configuration.capture!.context, configuration.capture!.context])
    }

    @Test(
        "The content reads its session's context: given when shown (prepared), from the first script on (direct); gone after dismissal",
        arguments: [true, false])
    func contentReadsTheContext(prepared: Bool) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = HeadlessRenderer(capabilities: prepared ? [.prepare, .visibility] : [])
        let host = try fixture.host(renderer)
        _ = try await host.prepare()
        #expect(renderer.context == [:])

        let session = try await host.present(context: ["placement": "settings", "campaign": "spring"])

        #expect(session.context == ["placement": "settings", "campaign": "spring"])
        #expect(renderer.context == ["placement": "settings", "campaign": "spring"])
        #expect(renderer.lastLoad != nil)
        // Dismissal resets or unloads the renderer before it returns (PresentationStageTests).
        await host.dismiss()
        #expect(renderer.context == [:])
        _ = try await host.present()
        #expect(renderer.context == [:], "a session without context must not see the last one's")
        await host.dispose()
    }
}
