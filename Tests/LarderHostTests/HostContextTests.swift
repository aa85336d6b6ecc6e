import Foundation
import LarderFormat
import LarderHost
import LarderTestSupport
import Testing

/// The host-wide context [seed 004: "additionalContext (SDKContext is [String: Any]): values
/// merged on top of the SDK-wide context for this session only, readable by the flow as App
/// Parameter variables"; seed 000: "Every queued event keeps the visitor, presentation session,
/// Journey revision, and context recorded when the event was created"]: JSON values, under each
/// presentation's own, read by the content and fixed in each capture.
@Suite("Host-wide context")
struct HostContextTests {
    static let hostWide: [String: JSONValue] = ["app": "1.2", "plan": ["tier": "pro", "seats": 3], "beta": true, "placement": "default"]
    static let presentation: [String: JSONValue] = ["placement": "upgrade_button", "cart": ["items": [1, 2]]]
    static let merged: [String: JSONValue] = [
        "app": "1.2", "plan": ["tier": "pro", "seats": 3], "beta": true, "placement": "upgrade_button", "cart": ["items": [1, 2]],
    ]

    func configuration(_ fixture: HostFixture) -> JourneyConfiguration {
        var configuration = fixture.configuration()
        configuration.context = Self.hostWide
        configuration.capture = CaptureSettings(context: ["build": "42", "placement": "settings-capture"])
        return configuration
    }

    @Test("The content reads the host-wide context under the presentation's, as JSON values, prepared or direct", arguments: [true, false])
    func contentReadsIt(prepared: Bool) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = HeadlessRenderer(capabilities: prepared ? [.prepare, .visibility] : [])
        let host = try fixture.host(renderer, configuration: configuration(fixture))

        let session = try await host.present(contextValues: Self.presentation)

        #expect(session.contextValues == Self.merged)
        #expect(renderer.contextValues == Self.merged)
        #expect(renderer.context["plan"] == #"{"seats":3,"tier":"pro"}"#, "the string view: canonical JSON text")
        await host.dismiss()
        _ = try await host.present()
        #expect(renderer.contextValues == Self.hostWide, "a presentation without its own context reads the host's")
        await host.dispose()
    }

    @Test("Each capture fixes the context it was created with: capture settings, then host-wide, then the presentation's")
    func capturesFixIt() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        var configuration = configuration(fixture)
        let host = try fixture.host(renderer, configuration: configuration)
        let session = try await host.present(contextValues: Self.presentation)
        renderer.post(.capture(event: "answer", body: Array("yes".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().count) == 2 })
        await host.dismiss()
        _ = try #require(try await host.track("app_event"))

        configuration.context = ["app": "2.0"]
        await host.updateConfiguration(configuration)
        await host.dispose()
        // After a restart, read back from the queue: the values as they were, JSON and all.
        let restarted = try fixture.host(configuration: configuration)
        let events = fixture.sink.accepted + (try await restarted.pendingCaptures())
        let inSession = Self.merged.merging(["build": "42"]) { old, _ in old }
        #expect(events.filter { $0.session == session.id }.map(\.contextValues) == [inSession, inSession])
        let tracked = try #require(events.first { $0.id.hasPrefix("track/") })
        #expect(tracked.contextValues == Self.hostWide.merging(["build": "42"]) { old, _ in old }, "outside a presentation: the host-wide context")
        await restarted.dispose()
    }
}
