import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderPack
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// The journey host with the web engine: prepared hidden, presented, answers captured.
    @Suite struct Host {
        /// Keeps captured events queued.
        struct HeldSink: CaptureSink {
            func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt {
                .failed(HostError(.unavailable, "held by the test"))
            }
        }

        @Test func hiddenPreparationRecordsNoPresentationAndShowingDoes() async throws {
            let fixture = try WebKitFixture()
            let archive = try Packer.pack(source: sampleBundles + "/onboarding", into: fixture.root + "/packed").archivePath
            let renderer = WebKitRenderer(configuration: WebKitFixture.configuration)
            // Nothing listens on port 1: the host falls back to the archive shipped with the app.
            let host = try JourneyHost(
                configuration: JourneyConfiguration(
                    publishableKey: "pk_test", journeyID: "onboarding", origin: URL(string: "http://127.0.0.1:1/")!,
                    embeddedDefault: archive, presentationDeadline: .seconds(60).scaledForTests),
                cache: fixture.cache, renderer: renderer, storage: fixture.root + "/host", captureSink: HeldSink(),
                coordinator: PresentationCoordinator())

            let prepared = try await host.prepare()

            #expect(prepared.preloaded)
            #expect(prepared.source == .embedded)
            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            #expect(try await renderer.evaluate("document.visibilityState") == .string("hidden"))
            #expect(try await host.pendingCaptures().isEmpty)

            let presented = try await host.present()

            #expect(await renderer.shownSessions == [presented.id])
            let captures = try await host.pendingCaptures()
            #expect(captures.map(\.id) == [presented.id + "/presented"])
            #expect(captures.first?.body == Array(#"{"type":"presented"}"#.utf8))

            // The user skips: the answer is captured for this session and the host hears the dismissal.
            var messages = host.messages.makeAsyncIterator()
            _ = try await renderer.evaluate("document.querySelector('.skip').click()")
            let first = await messages.next()
            #expect(first == .dismiss)
            #expect(try await within { try await host.pendingCaptures().count == 2 })
            let answer = try #require(try await host.pendingCaptures().last)
            #expect(answer.session == presented.id)
            #expect(String(decoding: answer.body, as: UTF8.self) == #"{"screen":"index.html","answer":"dismissed","reason":"skipped"}"#)
            // Dismissed: reset to the entry, hidden, ready for the next presentation.
            #expect(await within { await renderer.resets == 1 })
            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            await host.dispose()
            #expect(await renderer.state == .stopped)
        }
    }
}
