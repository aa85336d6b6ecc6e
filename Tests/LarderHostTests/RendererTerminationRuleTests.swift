import Foundation
import LarderHost
import LarderTestSupport
import Testing

/// A renderer whose engine ended by itself (a crashed or killed web process): the host stops
/// counting it as loaded, ends an open presentation, and loads again on the next preparation.
@Suite("Renderer termination rules")
struct RendererTerminationRuleTests {
    @Test("The decision: an open presentation ends; loaded content is marked unloaded; otherwise only recorded", arguments: [
        (true, true, RendererTermination.endPresentation), (true, false, .endPresentation), (false, true, .markUnloaded),
        (false, false, .record),
    ])
    func decision(_ presented: Bool, _ loaded: Bool, _ expected: RendererTermination) {
        #expect(RendererTermination.decide(presented: presented, loaded: loaded) == expected)
    }

    @Test("Hidden content lost to a crash is loaded again by the next preparation")
    func hiddenThenPrepareAgain() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let prepared = try await host.prepare()
        #expect(renderer.record.loads == [false])

        renderer.terminate("the web process crashed or was killed")

        #expect(await eventually { await host.readiness == .unloaded(prepared) })
        #expect(await host.timeline().last?.kind == .rendererTerminated)
        #expect(await host.timeline().last?.detail.contains("the web process crashed or was killed") == true)
        _ = try await host.prepare()
        #expect(renderer.record.loads == [false, false])
        guard case .ready(let again) = await host.readiness else { Issue.record("not ready: \(await host.readiness)"); return }
        #expect(again.bundle == prepared.bundle)
        await host.dispose()
    }

    @Test("An open presentation lost to a crash ends; the next presentation loads again and shows a new session")
    func presentedThenPresentAgain() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let first = try await host.present()

        renderer.terminate("the web process went over its memory limit (1024 MiB) and was ended")

        #expect(await eventually { await host.presentationState == .hidden })
        let second = try await host.present()
        #expect(second.id != first.id)
        #expect(renderer.record.loads == [false, false])
        #expect(renderer.record.shown.map(\.id) == [first.id, second.id])
        await host.dispose()
    }

    @Test("A preview lost to a crash ends and lets go of the renderer: the journey is prepared and presented again")
    func previewThenPresentAgain() async throws {
        let fixture = try HostFixture()
        let current = try fixture.publish("onboarding")
        let other = try fixture.cache.install(archiveAt: try fixture.archive("paywall")).bundle
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        let preview = try await host.preview(bundle: other)
        let updates = await host.presentationUpdates()
        // Disposal ends the stream, so a termination never handled fails instead of hanging.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10).scaledForTests)
            await host.dispose()
        }
        defer { watchdog.cancel() }

        renderer.terminate("the web process crashed or was killed")

        for await state in updates where state == .hidden { break }
        #expect(await host.waitForCompletion()?.session == preview)
        let session = try await host.present()
        #expect(!session.preview && session.bundle == current.bundle)
        #expect(renderer.record.shown.last == session)
        await host.dispose()
    }
}
