import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderPublish
import Testing

/// Previewing a given bundle for QA, outside the freshness rules and never recorded as the
/// journey's revision [seed 001].
@Suite("Preview a version")
struct PreviewTests {
    /// Puts a sample's bundle at the fixture's origin without pointing the journey at it.
    static func upload(_ archive: String, to fixture: HostFixture) throws -> Digest {
        let report = try OriginPublisher.publish(archives: [archive], to: fixture.root + "/origin", journey: nil)
        return try #require(report.bundles.first).digest
    }

    @Test("A bundle only at the origin is fetched by digest and shown; status, record and prepared content are unchanged")
    func fetched() async throws {
        let fixture = try HostFixture()
        let current = try fixture.publish("onboarding")
        let other = try Self.upload(try fixture.archive("paywall"), to: fixture)
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let prepared = try await host.prepare()
        let before = try await host.status()
        let journeyRequests = fixture.origin.journeyRequestCount

        let session = try await host.preview(bundle: other)
        #expect(session.preview && session.bundle == other && session.revision == 0)
        #expect(renderer.record.shown.last == session)
        #expect(renderer.record.loadedBundles.last == other)
        #expect(await host.presentationState == .presented(session))
        // Outside the freshness rules: the configuration was not asked for.
        #expect(fixture.origin.journeyRequestCount == journeyRequests)
        // Only the preview's presented capture is new.
        let during = try await host.status()
        var expected = before
        expected.pendingCaptures += 1
        expected.journeyCaptures += 1
        #expect(during == expected)
        #expect(try fixture.cache.bundle(other)?.complete == true)

        await host.dismiss()
        let result = await host.waitForCompletion()
        #expect(result?.session == session && result?.outcome == .endedByApp)
        _ = await host.deliverCapturedEvents()
        let captured = try #require(fixture.sink.accepted.first { $0.session == session.id })
        #expect(captured.context["larder:preview"] == "true" && captured.bundle == other && captured.revision == 0)
        #expect(try await host.status() == before)
        #expect(try await host.prepare() == prepared)
        // The prepared revision is what the next presentation shows.
        let next = try await host.present()
        #expect(!next.preview && next.bundle == current.bundle && next.revision == current.revision)
        #expect(renderer.record.shown.last == next)
        await host.dispose()
    }

    @Test("A cached bundle is shown without asking the origin; nothing prepared before, nothing prepared after")
    func cached() async throws {
        let fixture = try HostFixture()
        let document = try fixture.publish("onboarding")
        let warm = try fixture.host()
        try await warm.prepare()
        await warm.dispose()
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let files = fixture.origin.fileRequests.count
        let journeys = fixture.origin.journeyRequestCount

        let session = try await host.preview(bundle: document.bundle, context: ["qa": "1"])
        #expect(session.preview && session.context == ["qa": "1"])
        #expect(fixture.origin.fileRequests.count == files && fixture.origin.journeyRequestCount == journeys)
        await host.dismiss()
        #expect(await host.waitForCompletion()?.session == session)
        #expect(await host.readiness == .idle)
        #expect(fixture.origin.journeyRequestCount == journeys)
        await host.dispose()
    }

    @Test("A digest neither cached nor at the origin: a typed error naming it, nothing shown")
    func missing() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let missing = Digest(bytes: [UInt8](repeating: 0xab, count: 32))
        let error = await #expect(throws: HostError.self) { try await host.preview(bundle: missing) }
        #expect(error?.code == .bundleNotFound)
        #expect(error?.digest == missing)
        #expect(error?.message.contains(missing.description) == true)
        #expect(renderer.record.shown.isEmpty)
        #expect(await host.presentationState == .hidden)
        await host.dispose()
    }

    @Test("A bundle the renderer cannot load is refused as incompatible; the prepared content is still loaded")
    func incompatible() async throws {
        let fixture = try HostFixture()
        let current = try fixture.publish("onboarding")
        let newer = try Self.upload(try fixture.archive("onboarding", rendererProtocol: 2), to: fixture)
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        try await host.prepare()
        let error = await #expect(throws: HostError.self) { try await host.preview(bundle: newer) }
        #expect(error?.code == .incompatible && error?.digest == newer)
        #expect(!renderer.record.loadedBundles.contains(newer))
        #expect(renderer.record.shown.isEmpty)
        let session = try await host.present()
        #expect(session.bundle == current.bundle && !session.preview)
        await host.dispose()
    }

    @Test("A preview replaces the open presentation; dismissing it restores the prepared content hidden")
    func replacesOpen() async throws {
        let fixture = try HostFixture()
        let current = try fixture.publish("onboarding")
        let other = try Self.upload(try fixture.archive("paywall"), to: fixture)
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer)
        let first = try await host.present()
        let results = await host.presentationResults()
        let preview = try await host.preview(bundle: other)
        var ended = results.makeAsyncIterator()
        let replaced = await ended.next()
        #expect(replaced?.session == first && replaced?.outcome == .replaced)
        #expect(await host.presentationState == .presented(preview))
        await host.dismiss()
        #expect(await host.readiness == .ready(try await host.prepare()))
        #expect(renderer.record.loadedBundles.last == current.bundle)
        #expect(renderer.record.shown.contains(first))
        await host.dispose()
    }
}
