import Foundation
import LarderTestSupport
import LarderFormat
import LarderHost
import Testing

/// The bridge from renderer to app: typed actions reach the app in order; captures go to the
/// durable queue with the presentation's session and revision and their bodies unchanged;
/// a dismiss request dismisses.
@Suite("Bridge rules")
struct BridgeRuleTests {
    @Test("Typed actions reach the app in order; a dismiss request also dismisses")
    func actionsReachTheApp() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.present()
        let sent: [BridgeMessage] = [
            .navigate(screen: "screen-2.html"), .openLink(URL(string: "https://sprout.example.com/terms")!),
            .purchase(product: "com.example.sprout.plus.annual"), .restorePurchases,
            .custom(name: "sign-in", payload: .object(["screen": .string("index.html")])), .dismiss,
        ]
        for message in sent { renderer.post(message) }
        var received: [BridgeMessage] = []
        for await message in host.messages {
            received.append(message)
            if received.count == sent.count { break }
        }
        #expect(received == sent)
        #expect(await eventually { await host.presentationState == .hidden })
    }

    @Test("Captured bodies are kept byte for byte, in order, and deduplicated by event id")
    func capturesAreKept() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let session = try await host.present()
        let bodies: [[UInt8]] = [Array(#"{"answer":"ünïcödé"}"#.utf8), [0xFF, 0x00, 0xFE], Array("plain".utf8)]
        for (index, body) in bodies.enumerated() { renderer.post(.capture(event: "e\(index)", body: body)) }
        renderer.post(.capture(event: "e0", body: Array("again".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().count) == 4 })
        for _ in 0..<100 { await Task.yield() }
        await host.deliverCapturedEvents()
        let delivered = fixture.sink.accepted
        #expect(delivered.map(\.id) == [session.id + "/presented", "e0", "e1", "e2"])
        #expect(Array(delivered.dropFirst().map(\.body)) == bodies)
    }

    @Test("Capture off: nothing is queued")
    func captureOff() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        var configuration = fixture.configuration()
        configuration.capture = nil
        let host = try fixture.host(renderer, configuration: configuration)
        try await host.present()
        renderer.post(.capture(event: "e1", body: Array("x".utf8)))
        for _ in 0..<200 { await Task.yield() }
        #expect(try await host.pendingCaptures().isEmpty)
    }
}
