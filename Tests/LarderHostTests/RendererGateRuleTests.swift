import Foundation
import LarderCache
import LarderHost
import Testing

/// DESIGN.md Host, renderer protocol: content is gated on the renderer it was built for. A
/// bundle declaring a newer protocol than the renderer implements is never loaded; the host
/// falls back to an older cached revision that fits, then the embedded default, and says why.
@Suite("Renderer gate rules")
struct RendererGateRuleTests {
    @Test("A protocol-2 bundle with a protocol-1 renderer and nothing older: a typed error, nothing loaded")
    func nothingFits() async throws {
        let fixture = try HostFixture()
        let document = try fixture.publish(archive: fixture.archive("onboarding", rendererProtocol: 2))
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .incompatible)
        #expect(error?.digest == document.bundle)
        #expect(error?.message.contains("renderer protocol 2") == true)
        #expect(renderer.record.loadedBundles.isEmpty)
        #expect(await host.timeline().contains { $0.kind == .rendererGate })
    }

    @Test("With an older cached revision that fits, it is served and the reason is given; across a restart too")
    func olderRevision() async throws {
        let fixture = try HostFixture()
        let old = try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        let new = try fixture.publish(archive: fixture.archive("onboarding", rendererProtocol: 2))
        fixture.clock.advance(by: .seconds(31 * 60))
        let served = try await host.prepare()
        #expect(served.revision == old.revision && served.bundle == old.bundle)
        #expect(served.fallbackReason?.contains("renderer protocol 2") == true)
        #expect(!renderer.record.loadedBundles.contains(new.bundle))
        // The origin authorised revision 2; the older bundle is kept beside it.
        #expect(try await host.status().revision == new.revision)
        #expect(try fixture.cache.bundle(old.bundle)?.complete == true)
        await host.dispose()

        let restarted = ScriptedRenderer()
        let next = try fixture.host(restarted)
        let again = try await next.prepare()
        #expect(again.bundle == old.bundle && again.fallbackReason != nil)
        #expect(restarted.record.loadedBundles == [old.bundle])
        // A renderer that implements protocol 2 loads the new revision.
        await next.dispose()
        let newer = ScriptedRenderer(protocolVersion: 2)
        let capable = try fixture.host(newer)
        let current = try await capable.prepare()
        #expect(current.bundle == new.bundle && current.fallbackReason == nil)
    }

    @Test("With no older revision, the embedded default is served when it fits")
    func embeddedFallback() async throws {
        let fixture = try HostFixture()
        try fixture.publish(archive: fixture.archive("onboarding", rendererProtocol: 2))
        let host = try fixture.host(configuration: fixture.configuration(embedded: try fixture.archive("legacy-prompt")))
        let served = try await host.prepare()
        #expect(served.source == .embedded && served.revision == 0)
        #expect(served.fallbackReason?.contains("renderer protocol 2") == true)
    }

    @Test("An embedded default that does not fit either: the typed error")
    func embeddedUnfit() async throws {
        let fixture = try HostFixture()
        try fixture.publish(archive: fixture.archive("onboarding", rendererProtocol: 2))
        let embedded = try fixture.archive("legacy-prompt", rendererProtocol: 3, capabilities: [])
        let host = try fixture.host(configuration: fixture.configuration(embedded: embedded))
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .incompatible)
    }
}
