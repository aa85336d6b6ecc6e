import Foundation
import LarderTestSupport
import LarderHost
import Testing

/// DESIGN.md Host and seed: publishing while a journey is open does not replace its content;
/// a successful refresh stages the next revision; the open presentation and its delayed
/// answers stay tied to the revision the user saw.
@Suite("Staging rules")
struct StagingRuleTests {
    @Test("A new revision published during a presentation is staged until dismissal")
    func stagedWhilePresented() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let session = try await host.present()
        let second = try fixture.publish("paywall")
        #expect(second.revision == 2)

        fixture.clock.advance(by: .seconds(10 * 60))
        await host.refresh()
        #expect(await host.presentationState == .presented(session))
        #expect(renderer.record.loadedBundles.count == 1)
        renderer.post(.capture(event: "late-answer", body: Array("annual".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().count) == 2 })

        await host.dismiss()
        #expect(renderer.record.loadedBundles.last == second.bundle)
        guard case .ready(let journey) = await host.readiness else { Issue.record("not ready after dismissal"); return }
        #expect(journey.revision == 2)
        let next = try await host.present()
        #expect(next.revision == 2)
        #expect(next.id != session.id)

        await host.deliverCapturedEvents()
        let answers = fixture.sink.accepted.filter { $0.id == "late-answer" }
        #expect(answers.map(\.revision) == [1])
        #expect(answers.map(\.session) == [session.id])
        #expect(answers.map(\.bundle) == [session.bundle])
    }

    @Test("A new revision while hidden replaces the prepared content at once")
    func adoptedWhileHidden() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        let second = try fixture.publish("paywall")
        fixture.clock.advance(by: .seconds(10 * 60))
        #expect(await eventually { renderer.record.loadedBundles.last == second.bundle })
        #expect(try await host.present().revision == 2)
    }
}
