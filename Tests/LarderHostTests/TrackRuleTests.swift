import Foundation
import LarderFormat
import LarderHost
import LarderTestSupport
import Testing

/// `track(_:properties:)` [seed 002]: the app's own events go into the capture queue beside
/// the content's answers, attributed the same way; names follow `^[a-z][a-z0-9_:]*$`.
@Suite("App events")
struct TrackRuleTests {
    @Test(
        "A name that breaks the rule is refused with invalidEventName naming it, and nothing is queued",
        arguments: ["", "Paywall", "1st", "_x", ":x", "a-b", "a b", "a.b", "é", "a\u{0}", String(repeating: "a", count: 101)])
    func invalidNames(_ name: String) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        _ = try await host.present()
        let before = try await host.pendingCaptures().count

        let error = await hostError { () throws(HostError) in _ = try await host.track(name) }

        #expect(error?.code == .invalidEventName)
        #expect(error?.message.contains("'\(name)'") == true)
        #expect(try await host.pendingCaptures().count == before)
    }

    @Test("Valid names are queued for the open session, with the session's context and the properties", arguments: [
        "a", "paywall:closed", "trial_started2", String(repeating: "z", count: 100),
    ])
    func queuedForTheOpenSession(_ name: String) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.capture = CaptureSettings(context: ["app": "1.0"])
        let host = try fixture.host(configuration: configuration)
        let session = try await host.present(context: ["placement": "settings"])

        let id = try #require(try await host.track(name, properties: ["plan": "annual"]))

        let event = try #require(try await host.pendingCaptures().first { $0.id == id })
        #expect(event.session == session.id && event.revision == session.revision && event.bundle == session.bundle)
        #expect(event.context == ["app": "1.0", "placement": "settings"])
        #expect(try JSONValue.parse(event.body) == .object([
            "type": .string("track"), "name": .string(name), "properties": .object(["plan": .string("annual")]),
        ]))
        await host.dispose()
    }

    @Test("Without an open presentation an event belongs to the prepared revision; with nothing prepared it is refused")
    func outsideAPresentation() async throws {
        let fixture = try HostFixture()
        let document = try fixture.publish("onboarding")
        let host = try fixture.host()
        let early = await hostError { () throws(HostError) in _ = try await host.track("app_opened") }
        #expect(early?.code == .unavailable)

        try await host.prepare()
        let id = try #require(try await host.track("app_opened"))

        let event = try #require(try await host.pendingCaptures().first { $0.id == id })
        #expect(event.session == "")
        #expect(event.revision == document.revision && event.bundle == document.bundle)
        #expect(event.context == CaptureSettings().context)
        await host.dispose()
    }

    @Test("With capture off nothing is queued and no id is returned")
    func captureOff() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.capture = nil
        let host = try fixture.host(configuration: configuration)
        try await host.prepare()
        #expect(try await host.track("app_opened") == nil)
        await host.dispose()
    }
}
