import Foundation
import LarderFormat
import LarderHost
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// The renderer lifecycle as the host drives it.
    @Suite struct Lifecycle {
        @Test func preparedHiddenThenShownThenResetToTheEntryWhileHidden() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample("onboarding")
            let (renderer, inbox) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            #expect(try await renderer.evaluate("document.visibilityState") == .string("hidden"))
            _ = try await renderer.evaluate("""
                window.seen = [];
                document.addEventListener("larder:visibility", (event) => seen.push(event.detail));
                document.addEventListener("visibilitychange", () => seen.push(document.visibilityState));
                """)

            try await renderer.show(session("s1", bundle))

            #expect(await renderer.state == .loaded(visible: true, document: "index.html"))
            #expect(try await within { try await renderer.evaluate("document.visibilityState") == .string("visible") })
            let seen = try await renderer.evaluate("seen")
            #expect(seen == .array([
                .object(["visible": .bool(true), "session": .string("s1"), "journey": .string("journey_123"), "revision": .int(7)]),
                .string("visible"),
            ]) || seen == .array([
                .string("visible"),
                .object(["visible": .bool(true), "session": .string("s1"), "journey": .string("journey_123"), "revision": .int(7)]),
            ]), "\(seen)")

            // The user moves on: the page says so and navigates inside the bundle.
            _ = try await renderer.evaluate(#"document.querySelector('a[href="screen-2.html"]').click()"#)
            #expect(await within { await renderer.state == .loaded(visible: true, document: "screen-2.html") })
            #expect(await within { inbox.received.contains(.navigate(screen: "screen-2.html")) })

            try await renderer.reset()

            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            #expect(await renderer.resets == 1)
            #expect(try await renderer.evaluate("location.pathname") == .string("/index.html"))
            #expect(try await renderer.evaluate("document.visibilityState") == .string("hidden"))
            #expect(await renderer.lastLoad?.fonts.allSatisfy { $0.status == "loaded" } == true)
            try await renderer.show(session("s2", bundle))
            #expect(await renderer.shownSessions == ["s1", "s2"])
            #expect(await renderer.loads == 1)
            await renderer.stop()
        }

        /// A reset issued while a navigation the page started is still committing: that
        /// navigation's events arrive after the reset's load began, and must not be taken for it.
        @Test func aResetRightAfterThePageNavigatedShowsTheEntry() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample("onboarding")
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            for round in 0..<20 {
                _ = try await renderer.evaluate(#"document.querySelector('a[href="screen-2.html"]').click()"#)
                if round % 2 == 1 { try await Task.sleep(for: .milliseconds(round)) }
                try await renderer.reset()
                #expect(try await renderer.evaluate("location.pathname") == .string("/index.html"), "round \(round)")
            }
            #expect(await renderer.resets == 20)
            await renderer.stop()
        }

        @Test func unloadThenLoadWorks() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample("paywall")
            let (renderer, _) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)

            await renderer.unload()

            #expect(await renderer.state == .started)
            #expect(await renderer.unloads == 1)
            let error = await hostError { () async throws(HostError) in try await renderer.show(session("s1", bundle)) }
            #expect(error?.message.contains("nothing loaded") == true)
            #expect(await renderer.shownSessions.isEmpty)

            try await renderer.load(try fixture.content(bundle), visible: false)
            #expect(await renderer.state == .loaded(visible: false, document: "index.html"))
            #expect(await renderer.loads == 2)
            #expect(await renderer.lastLoad?.fonts.count == 2)
            #expect(await renderer.lastLoad?.fonts.allSatisfy { $0.status == "loaded" } == true)
            try await renderer.show(session("s1", bundle))
            #expect(try await renderer.evaluate("document.querySelector('h1').textContent") == .string("Cook more, waste less"))
            await renderer.stop()
        }

        @Test func aDirectPresentationIsVisibleAtOnce() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample("legacy-prompt")
            let (renderer, _) = try await fixture.startedRenderer(.init(capabilities: []))
            #expect(!renderer.supportsPreparation)
            try await renderer.load(try fixture.content(bundle), visible: true)
            #expect(await renderer.state == .loaded(visible: true, document: "index.html"))
            #expect(try await within { try await renderer.evaluate("document.visibilityState") == .string("visible") })
            await renderer.stop()
        }

        @Test func stopIsFinal() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample("legacy-prompt")
            let (renderer, inbox) = try await fixture.startedRenderer()
            try await renderer.load(try fixture.content(bundle), visible: false)
            await renderer.stop()
            #expect(await renderer.state == .stopped)
            let content = try fixture.content(bundle)
            #expect(await hostError { () async throws(HostError) in try await renderer.start(bridge: inbox.bridge) }?.code == .disposed)
            #expect(await hostError { () async throws(HostError) in try await renderer.load(content, visible: false) }?.code == .disposed)
            #expect(await hostError { () async throws(HostError) in try await renderer.show(session("s", bundle)) }?.code == .disposed)
            #expect(await hostError { () async throws(HostError) in try await renderer.reset() }?.code == .disposed)
            #expect(await hostError { () async throws(HostError) in _ = try await renderer.evaluate("1") }?.code == .disposed)
            #expect(await hostError { () async throws(HostError) in _ = try await renderer.screenshot() }?.code == .disposed)
        }

        @Test func aScreenshotIsAPNGOfTheViewport() async throws {
            let fixture = try WebKitFixture()
            let (bundle, _) = try fixture.installSample("onboarding")
            let (renderer, _) = try await fixture.startedRenderer(.init(viewport: Viewport(width: 390, height: 700)))
            try await renderer.load(try fixture.content(bundle), visible: false)
            let png = try await renderer.screenshot()
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            // IHDR: width and height, big-endian, at bytes 16...23.
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == 390 && height == 700)
            await renderer.stop()
        }
    }
}
