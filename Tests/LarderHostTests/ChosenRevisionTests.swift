import Foundation
import LarderFormat
import LarderHost
import LarderTestSupport
import Testing

/// Production presentation of a chosen published revision [seed 001: "try await
/// NuxieSDK.shared.showFlow(with: "ver_abc123")", "its flowId parameter is an experience version
/// ID"; seed 000: "Every queued event keeps the visitor, presentation session, Journey revision,
/// and context recorded when the event was created"]: authorised with the key, by revision or by
/// bundle, its captures carrying that revision (a QA preview's carry revision 0).
@Suite("A chosen revision")
struct ChosenRevisionTests {
    @Test("An earlier revision, by number or by bundle: authorised by the origin, shown, its captures carry it", arguments: [true, false])
    func earlierRevision(byNumber: Bool) async throws {
        let fixture = try HostFixture()
        let first = try fixture.publish("onboarding")
        fixture.clock.advance(by: .seconds(1))
        let second = try fixture.publish("paywall")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let prepared = try await host.prepare()
        #expect(prepared.revision == second.revision)

        let session = try await host.present(version: byNumber ? .revision(first.revision) : .bundle(first.bundle), context: ["source": "qa-link"])

        #expect(!session.preview && session.revision == first.revision && session.bundle == first.bundle)
        #expect(session.contextValues == ["source": "qa-link"])
        #expect(renderer.record.shown.last == session && renderer.record.loadedBundles.last == first.bundle)
        #expect(fixture.origin.journeyRequests.contains { $0.url.path.hasSuffix("/onboarding.history.json") && $0.headers["X-Larder-Key"] == HostFixture.key })
        renderer.post(.capture(event: "answer", body: Array("yes".utf8)))
        #expect(await eventually { (try? await host.pendingCaptures().filter { $0.session == session.id }.count) == 2 })
        await host.dismiss()
        #expect(await host.waitForCompletion()?.session == session)
        _ = await host.deliverCapturedEvents()
        let captured = fixture.sink.accepted.filter { $0.session == session.id }
        #expect(captured.map(\.revision) == [first.revision, first.revision] && captured.allSatisfy { $0.bundle == first.bundle })
        #expect(captured.allSatisfy { $0.context["larder:preview"] == nil })
        // The prepared revision is untouched, and shown next.
        #expect(try await host.status().revision == second.revision)
        #expect(try await host.present().revision == second.revision)
        await host.dispose()
    }

    @Test("The current revision needs no history; a revision never published is a typed error naming it")
    func currentAndUnknown() async throws {
        let fixture = try HostFixture()
        let document = try fixture.publish("onboarding")
        let host = try fixture.host()
        let session = try await host.present(version: .revision(document.revision))
        #expect(session.revision == document.revision && !session.preview)
        #expect(!fixture.origin.journeyRequests.contains { $0.url.path.hasSuffix(".history.json") })
        await host.dismiss()
        let error = await #expect(throws: HostError.self) { try await host.present(version: .revision(7)) }
        #expect(error?.code == .revisionNotFound && error?.message.contains("revision 7") == true)
        await host.dispose()
    }

    @Test("Without the origin's authorisation nothing is shown: denied is denied, offline after a restart is unavailable")
    func needsAuthorisation() async throws {
        let fixture = try HostFixture()
        let document = try fixture.publish("onboarding")
        let first = try fixture.host()
        try await first.prepare()
        await first.dispose()

        fixture.origin.behaviour = .offline
        let offline = try fixture.host()
        let unavailable = await #expect(throws: HostError.self) { try await offline.present(version: .revision(document.revision)) }
        #expect(unavailable?.code == .unavailable)
        #expect(await offline.presentationState == .hidden)
        await offline.dispose()

        fixture.origin.behaviour = .status(403, [:])
        fixture.clock.advance(by: .seconds(60))
        let denied = try fixture.host()
        let error = await #expect(throws: HostError.self) { try await denied.present(version: .revision(document.revision)) }
        #expect(error?.code == .denied && error?.status == 403)
        await denied.dispose()
    }

    @Test("With trusted keys, only the signed document's revision may be chosen (the history is not signed)")
    func trustedKeys() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        try SignedDocumentTests.publish(fixture, "onboarding", key: key)
        fixture.clock.advance(by: .seconds(1))
        let current = try SignedDocumentTests.publish(fixture, "paywall", key: key)
        let host = try SignedDocumentTests.host(fixture, trusting: [key.publicKey])
        #expect(try await host.present(version: .revision(current.revision)).revision == current.revision)
        await host.dismiss()
        let error = await #expect(throws: HostError.self) { try await host.present(version: .revision(1)) }
        #expect(error?.code == .rejected)
        await host.dispose()
    }
}
