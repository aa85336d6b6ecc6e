import Foundation
import LarderTestSupport
import LarderFormat
import LarderHost
import Testing

/// DESIGN.md Host, renderer: a capable renderer is initialised hidden, reused for showing and
/// reset while hidden after dismissal; an older one gets direct presentation; each
/// presentation gets a new session id; a 15 s deadline ends in a retryable error; memory
/// warnings unload a hidden renderer and keep an active one; disposal stops everything.
@Suite("Presentation rules")
struct PresentationRuleTests {
    struct Mode: Sendable, CustomTestStringConvertible {
        var name: String
        var sample: String
        var capabilities: Set<Manifest.Capability>
        var preloaded: Bool
        var testDescription: String { name }
    }

    @Test(
        "Prepared presentation for capable renderers and bundles, direct presentation otherwise",
        arguments: [
            Mode(name: "capable renderer, capable bundle", sample: "onboarding", capabilities: [.prepare, .visibility], preloaded: true),
            Mode(name: "older renderer", sample: "onboarding", capabilities: [], preloaded: false),
            Mode(name: "renderer without visibility", sample: "onboarding", capabilities: [.prepare], preloaded: false),
            Mode(name: "bundle without capabilities", sample: "legacy-prompt", capabilities: [.prepare, .visibility], preloaded: false),
        ])
    func presentationMode(_ mode: Mode) async throws {
        let fixture = try HostFixture()
        try fixture.publish(mode.sample)
        let renderer = ScriptedRenderer(capabilities: mode.capabilities)
        let host = try fixture.host(renderer)
        let journey = try await host.prepare()
        #expect(journey.preloaded == mode.preloaded)
        #expect(renderer.record.starts == 1)  // started beside the configuration fetch either way
        #expect(renderer.record.loads == (mode.preloaded ? [false] : []))

        let first = try await host.present()
        #expect(renderer.record.loads == (mode.preloaded ? [false] : [true]))
        await host.dismiss()
        let second = try await host.present()
        #expect(first.id != second.id)
        #expect(renderer.record.shown.map(\.id) == [first.id, second.id])
        // Capable: one hidden load reused and reset after dismissal. Direct: loaded when visible.
        #expect(renderer.record.loads == (mode.preloaded ? [false] : [true, true]))
        #expect(renderer.record.resets == (mode.preloaded ? 1 : 0))
    }

    @Test("Hidden preparation records no presentation analytics; showing does")
    func noAnalyticsWhileHidden() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        renderer.post(.capture(event: "hidden-visit", body: Array("x".utf8)))
        for _ in 0..<100 { await Task.yield() }
        #expect(try await host.pendingCaptures().isEmpty)
        let session = try await host.present()
        let pending = try await host.pendingCaptures()
        #expect(pending.map(\.id) == [session.id + "/presented"])
    }

    @Test("The presentation deadline ends in a retryable error; a retry can succeed")
    func presentationDeadline() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        renderer.loadBehaviour = .hang
        let host = try fixture.host(renderer)
        let attempt = Task { try await host.present() }
        #expect(await eventually { renderer.waitingLoads == 1 })
        fixture.clock.advance(by: .seconds(14))
        for _ in 0..<100 { await Task.yield() }
        fixture.clock.advance(by: .seconds(1))
        let error = await #expect(throws: HostError.self) { try await attempt.value }
        #expect(error?.code == .deadlineExceeded)
        #expect(error?.isRetryable == true)
        #expect(await host.presentationState == .hidden)

        // The late load finishing does not show what the caller was told had failed.
        renderer.loadBehaviour = .succeed
        renderer.releaseLoads()
        for _ in 0..<200 { await Task.yield() }
        #expect(await host.presentationState == .hidden)
        #expect(renderer.record.shown.isEmpty)

        let session = try await host.present()
        #expect(await host.presentationState == .presented(session))
    }

    @Test("A memory warning unloads a hidden renderer, which rebuilds from the cache without a request")
    func memoryWarningWhileHidden() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let journey = try await host.prepare()
        await host.handleMemoryWarning()
        #expect(renderer.record.unloads == 1)
        #expect(await host.readiness == .unloaded(journey))
        try await host.present()
        #expect(renderer.record.loads == [false, false])
        #expect(fixture.origin.journeyRequestCount == 1)
    }

    @Test("A memory warning keeps an open presentation")
    func memoryWarningWhilePresented() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let session = try await host.present()
        await host.handleMemoryWarning()
        #expect(renderer.record.unloads == 0)
        #expect(await host.presentationState == .presented(session))
    }

    @Test("Disposal stops the renderer, cuts the bridge and refuses further presentation")
    func disposal() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let updates = await host.readinessUpdates()
        let presentations = await host.presentationUpdates()
        let session = try await host.present()
        await host.dispose()
        var shown: [PresentationState] = []
        for await state in presentations { shown.append(state) }
        #expect(shown == [.hidden, .presented(session), .hidden])
        #expect(renderer.record.stops == 1)
        #expect(await host.readiness == .disposed)
        let error = await #expect(throws: HostError.self) { try await host.present() }
        #expect(error?.code == .disposed)
        var seen: [Readiness] = []
        for await state in updates { seen.append(state) }  // finishes because the host was disposed
        #expect(seen.first == .idle)
        #expect(seen.last == .disposed)
        #expect(seen.contains(.preparing))
    }

    @Test("Prepare is idempotent: concurrent calls share one piece of work")
    func sharedPreparation() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        async let a = host.prepare()
        async let b = host.prepare()
        async let c = host.prepare()
        let results = try await [a, b, c]
        #expect(Set(results.map(\.bundle)).count == 1)
        #expect(renderer.record.loads == [false])
        #expect(renderer.record.starts == 1)
        #expect(fixture.origin.journeyRequestCount == 1)
    }
}
