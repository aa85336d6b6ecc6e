import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderPublish
import LarderTestSupport
import LarderTransport
import LarderSystem
import Testing

/// JourneyHost over real HTTP (the platform transport: libcurl on Linux) against the nginx origin, with the headless
/// renderer doing real loads through a real cache.
@Suite(.serialized) struct JourneyHostTests {
    static let key = "pk_live_host"

    /// A host as an app would make it on each launch: real transport, system clock. The fetch
    /// deadline is generous (and scaled, see `testTimeScale`): no test here is about it, and a busy
    /// test machine can take seconds.
    func launch(_ origin: Origin, _ work: Workspace, renderer: HeadlessRenderer, sink: any CaptureSink) throws -> JourneyHost {
        let configuration = JourneyConfiguration(
            publishableKey: Self.key, journeyID: "onboarding", identity: JourneyIdentity(externalID: "usr_1"), origin: origin.base,
            fetchDeadline: .seconds(30).scaledForTests, presentationDeadline: .seconds(60).scaledForTests)
        return try JourneyHost(
            configuration: configuration, cache: try work.cache(), renderer: renderer, storage: work.path + "/host",
            captureSink: sink, coordinator: PresentationCoordinator())
    }

    @Test func preparesOnlineThenOfflineFromTheCacheAfterTheOriginStops() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.pack(sampleBundles + "/onboarding")
        try origin.publish([onboarding.archivePath], journey: JourneyPublication(id: "onboarding", key: Self.key))
        try origin.reload()
        let sink = Collector()

        let renderer = HeadlessRenderer()
        let host = try launch(origin, work, renderer: renderer, sink: sink)
        let prepared = try await host.prepare()
        #expect(prepared.source == .network)
        #expect(prepared.bundle == onboarding.bundleDigest)
        #expect(prepared.preloaded)
        #expect(renderer.state == .loaded(visible: false, screen: "index.html"))
        #expect((renderer.lastLoad?.fonts ?? 0) > 0)
        let session = try await host.present()
        #expect(renderer.shownSessions == [session.id])
        await host.dismiss()
        await host.dispose()

        try origin.stop()
        let offlineRenderer = HeadlessRenderer()
        let restarted = try launch(origin, work, renderer: offlineRenderer, sink: sink)
        let offline = try await restarted.prepare()
        #expect(offline.source == .cache)
        #expect(offline.bundle == onboarding.bundleDigest)
        #expect(offlineRenderer.lastLoad == renderer.lastLoad)
        let timeline = await restarted.timeline().map(\.kind)
        #expect(timeline.contains(.servedStale))
        #expect(try await restarted.present().revision == 1)
        await restarted.dispose()
    }

    @Test func aRevokedKeyDiscardsContentAndTheNextAttemptReauthorises() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.pack(sampleBundles + "/onboarding")
        let publication = JourneyPublication(id: "onboarding", key: Self.key)
        try origin.publish([onboarding.archivePath], journey: publication)
        try origin.reload()
        let renderer = HeadlessRenderer()
        let host = try launch(origin, work, renderer: renderer, sink: Collector())
        try await host.present()

        try origin.revokeAllKeys()
        await host.refresh()
        #expect(await host.readiness == .denied(status: 401))
        #expect(await host.presentationState == .hidden)
        #expect(renderer.state == .started)  // the presentation's content was dropped
        #expect(try await host.status().revision == nil)
        let denied = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(denied?.code == .denied)
        #expect(denied?.status == 401)

        try origin.publish([onboarding.archivePath], journey: publication)  // grants the key again
        try origin.reload()
        let again = try await host.prepare()
        #expect(again.source == .network)
        let lines = origin.accessLog.filter { $0.contains("/journeys/onboarding.json") }
        #expect(lines.suffix(3).map { $0.split(separator: " ")[2] } == ["401", "401", "200"])
        #expect(lines.last?.contains(#""-" "pk_live_host""#) == true)  // no validator: authorised afresh
        await host.dispose()
    }

    @Test func aRevisionPublishedWhilePresentedWaitsAndAnswersKeepTheirRevision() async throws {
        let origin = try Origin()
        let work = try Workspace()
        let onboarding = try work.pack(sampleBundles + "/onboarding")
        let paywall = try work.pack(sampleBundles + "/paywall")
        try origin.publish([onboarding.archivePath], journey: JourneyPublication(id: "onboarding", key: Self.key))
        try origin.reload()
        let sink = Collector()
        let renderer = HeadlessRenderer()
        let host = try launch(origin, work, renderer: renderer, sink: sink)
        let session = try await host.present()
        #expect(session.revision == 1)

        let second = try origin.publish([paywall.archivePath], journey: JourneyPublication(id: "onboarding", key: Self.key))
        #expect(second.journey?.revision == 2)
        await host.refresh()
        #expect(await host.presentationState == .presented(session))
        #expect(renderer.shownSessions == [session.id])
        #expect(await host.timeline().map(\.kind).contains(.staged))

        try renderer.receive(Array(#"{"type":"capture","event":"answer-1","body":"{\"goal\":\"sleep\"}"}"#.utf8))
        try renderer.receive(Array(#"{"type":"dismiss"}"#.utf8))
        let dismissed = await eventually(within: .seconds(30)) { await host.presentationState == .hidden }
        #expect(dismissed)
        let ready = await eventually(within: .seconds(30)) {
            if case .ready(let journey) = await host.readiness { return journey.revision == 2 }
            return false
        }
        #expect(ready)
        let next = try await host.present()
        #expect(next.revision == 2)
        #expect(next.bundle == paywall.bundleDigest)

        await host.deliverCapturedEvents()
        let answer = sink.events.first { $0.id == "answer-1" }
        #expect(answer?.revision == 1)
        #expect(answer?.session == session.id)
        #expect(answer?.bundle == onboarding.bundleDigest)
        #expect(answer?.visitor == "usr_1")
        #expect(answer.map { String(decoding: $0.body, as: UTF8.self) } == #"{"goal":"sleep"}"#)
        await host.dispose()
    }
}

/// Keeps delivered capture events.
final class Collector: CaptureSink {
    private let delivered = Locked<[CaptureEvent]>([])
    var events: [CaptureEvent] { delivered.withLock { $0 } }
    func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt {
        delivered.withLock { $0 += events }
        return .accepted(events.count)
    }
}
