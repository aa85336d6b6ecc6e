import Foundation
import LarderTestSupport
import LarderHost
import Testing

/// DESIGN.md Host: configuration changes (key, journey id, identity, base URL) invalidate
/// prepared content; a generation counter stops late responses from the old scope writing
/// into the new one. Identity only attributes; captured events keep their visitor.
@Suite("Scope and identity rules")
struct ScopeRuleTests {
    struct Change: Sendable, CustomTestStringConvertible {
        var name: String
        var apply: @Sendable (inout JourneyConfiguration) -> Void
        var testDescription: String { name }
    }

    @Test(
        "Any scope change invalidates prepared content and prepares the new scope",
        arguments: [
            Change(name: "identity") { $0.identity = JourneyIdentity(externalID: "usr_2") },
            Change(name: "key") { $0.publishableKey = "pk_other" },
            Change(name: "journey") { $0.journeyID = "paywall" },
            Change(name: "origin") { $0.origin = URL(string: "http://origin.test/v2/")! },
        ])
    func scopeChange(_ change: Change) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        var configuration = fixture.configuration(identity: "usr_1")
        let host = try fixture.host(renderer, configuration: configuration)
        try await host.prepare()
        let before = fixture.origin.journeyRequestCount
        change.apply(&configuration)
        await host.updateConfiguration(configuration)
        // The new scope is prepared afresh: it asks the origin again (whatever it answers).
        #expect(await eventually { fixture.origin.journeyRequestCount == before + 1 })
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] == nil)
        #expect(await host.configuration == configuration)
    }

    @Test("A late answer for the old scope does not write into the new one")
    func lateAnswerDropped() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        fixture.origin.behaviour = .hang
        let host = try fixture.host(configuration: fixture.configuration(identity: "usr_1"))
        let old = Task { try await host.prepare() }
        #expect(await eventually { fixture.origin.hangingCount == 1 })
        fixture.origin.behaviour = .offline
        await host.updateConfiguration(fixture.configuration(identity: "usr_2"))
        #expect(await eventually { fixture.origin.journeyRequestCount == 2 })
        fixture.origin.behaviour = .serve
        fixture.origin.release()
        await #expect(throws: HostError.self) { try await old.value }
        for _ in 0..<100 { await Task.yield() }
        // usr_2's scope got nothing from usr_1's answer, and usr_1's late answer stored nothing.
        #expect(try await host.status().revision == nil)
        if case .ready = await host.readiness { Issue.record("the old scope's answer made the new scope ready") }
        await host.updateConfiguration(fixture.configuration(identity: "usr_1"))
        #expect(try await host.status().revision == nil)
    }

    @Test("Events keep the visitor they were created with after an identity change")
    func attributionIsFixed() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer, configuration: fixture.configuration(identity: "usr_1"))
        let session = try await host.present()
        renderer.post(.capture(event: "e1", body: Array("yes".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().count) == 2 })
        await host.updateConfiguration(fixture.configuration(identity: "usr_2"))
        await host.deliverCapturedEvents()
        let delivered = fixture.sink.accepted
        #expect(delivered.map(\.visitor) == ["usr_1", "usr_1"])
        #expect(delivered.allSatisfy { $0.session == session.id && $0.revision == 1 })
        #expect(await host.presentationState == .hidden)
    }
}
