import CWebKitGTK
import Foundation
import LarderHost
import LarderJourneyView
import LarderSystem
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests.JourneyViewOnScreen {
    // Reduced motion, one overlay at a time, the foreground grace, a renderer that dies, the
    // app's own states.
    @Test func reducedMotionKeepsTheLoadingIndicatorStill() async throws {
        try await JourneyViewWorld.run { world in
            let origin = try world.origin([.hold])
            let (host, _) = try world.host(origin: origin.url, embedded: false)
            let app = world.appWindow()
            let view = try JourneyView(host: host)
            larder_set_animations_enabled(0)
            defer { larder_set_animations_enabled(1) }

            await view.present(over: UnsafeMutableRawPointer(app))
            let overlay = try #require(view.overlayWindow)
            #expect(await onScreen { gtk_widget_get_mapped(overlay) != 0 && ViewTree.indicator(under: overlay) != nil })
            try await Task.sleep(for: .milliseconds(200))
            let still = try #require(WindowPicture.of(overlay))
            try await Task.sleep(for: .milliseconds(300))
            #expect(WindowPicture.of(overlay) == still, "the indicator stands still")
            #expect(still.colours > 2, "and it is drawn")
            Shots.keep(still, as: "overlay-loading-reduced-motion")

            // With animations on, the same indicator turns.
            larder_set_animations_enabled(1)
            var turned = false
            let first = WindowPicture.of(overlay)
            for _ in 0..<20 where !turned {
                try await Task.sleep(for: .milliseconds(50))
                turned = WindowPicture.of(overlay) != first
            }
            #expect(turned)
            origin.release()
            view.dismiss()
        }
    }

    @Test func twoOverlaysShowOneAtATime() async throws {
        try await JourneyViewWorld.run { world in
            let coordinator = PresentationCoordinator()
            let origin = try world.origin([.hold])
            let (slowHost, _) = try world.host(origin: origin.url, embedded: false, coordinator: coordinator)
            let (host, _) = try world.host(coordinator: coordinator)
            let app = world.appWindow()
            let first = try JourneyView(host: slowHost)
            let second = try JourneyView(host: host)
            let secondSeen = Seen(second)

            await first.present(over: UnsafeMutableRawPointer(app))
            #expect(await onScreen { first.phase == .loading })
            // A new overlay goes up: the one still loading closes at once.
            await second.present(over: UnsafeMutableRawPointer(app))
            #expect(first.overlayWindow == nil)
            #expect(first.phase == .ended)
            #expect(await onScreen { second.phase == .showing })
            #expect(Overlays.mapped(over: app) == 1)

            // The first again: once its flow shows, the second's is replaced and its overlay closes.
            origin.release()
            await first.present(over: UnsafeMutableRawPointer(app))
            #expect(await onScreen { first.phase == .showing })
            #expect(await onScreen { second.overlayWindow == nil })
            #expect(secondSeen.results.map(\.outcome) == [.replaced])
            #expect(await host.presentationState == .hidden)
            #expect(Overlays.mapped(over: app) == 1)
            first.dismiss()
        }
    }

    @Test func noOverlayAppearsWithinTheForegroundGrace() async throws {
        try await JourneyViewWorld.run { world in
            let (host, _) = try world.host(grace: .milliseconds(900))
            let app = world.appWindow()
            let view = try JourneyView(host: host)
            await host.setForeground(false)
            // Read before the return: the grace starts inside setForeground(true), so a time read
            // after it could be later than the grace's start (0.8994 s "within" 0.9 s in a run).
            let back = ContinuousClock.now
            await host.setForeground(true)

            let presenting = Task { await view.present(over: UnsafeMutableRawPointer(app)) }
            var looks = 0
            while ContinuousClock.now < back + .milliseconds(800) {
                #expect(view.overlayWindow == nil, "an overlay within the grace")
                #expect(Overlays.mapped(over: app) == 0)
                looks += 1
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(looks > 0)
            await presenting.value

            #expect(ContinuousClock.now - back >= .milliseconds(900))
            #expect(view.overlayWindow != nil)
            #expect(await onScreen { view.phase == .showing })
            view.dismiss()
        }
    }

    @Test func aRendererThatDiesShowsTheErrorStateNotABlankWindow() async throws {
        try await JourneyViewWorld.run { world in
            let (host, renderer) = try world.host()
            let app = world.appWindow()
            let view = try JourneyView(host: host)
            let seen = Seen(view)
            let others = Set(OwnWebProcesses.running().map(\.pid))
            await view.present(over: UnsafeMutableRawPointer(app))
            #expect(await onScreen { view.phase == .showing })
            let overlay = try #require(view.overlayWindow)
            let ready = await WindowPicture.settled(overlay)
            let mine = OwnWebProcesses.running().filter { !others.contains($0.pid) }
            try #require(mine.count == 1, "\(mine)")

            kill(mine[0].pid, SIGKILL)

            #expect(await onScreen { view.phase == .failed })
            #expect(seen.errors.map(\.code) == [.presentationFailed])
            #expect(seen.results.map(\.outcome) == [.failed])
            let error = try #require(await WindowPicture.settled(overlay))
            Shots.keep(error, as: "overlay-error-after-the-renderer-died")
            #expect(ViewTree.texts(under: overlay) == [BuiltInStates.errorTitle, BuiltInStates.errorMessage, BuiltInStates.closeLabel, BuiltInStates.retryLabel])
            #expect(error.colours > 10, "not a blank window")
            #expect(ready.map { error.differingPixels(from: $0) > 1000 } == true)

            // Try again: the flow shows again, loaded afresh in the same web view.
            gtk_button_clicked(larder_button(try #require(ViewTree.buttons(under: overlay)[BuiltInStates.retryLabel])))
            #expect(await onScreen { view.phase == .showing })
            #expect(renderer.loads == 2)
            #expect(ViewTree.webViews(under: overlay) == [try #require(renderer.webViewWidget)])
            view.dismiss()
        }
    }

    @Test func theAppsOwnLoadingAndErrorWidgetsTakeTheBuiltInOnesPlace() async throws {
        try await JourneyViewWorld.run { world in
            let origin = try world.origin([.unavailable, .hold])
            let (host, _) = try world.host(origin: origin.url, embedded: false)
            let app = world.appWindow()
            let loading = gtk_label_new("Getting your offer ready")!
            let failures = Failures()
            let view = try JourneyView(host: host, loadingView: UnsafeMutableRawPointer(loading)) { error, retry in
                failures.errors.append(error)
                failures.retry = retry
                return UnsafeMutableRawPointer(gtk_label_new("Our own error message")!)
            }

            await view.present(over: UnsafeMutableRawPointer(app))
            let overlay = try #require(view.overlayWindow)
            #expect(await onScreen { view.phase == .failed })
            #expect(ViewTree.texts(under: overlay) == ["Our own error message"])
            #expect(ViewTree.buttons(under: overlay).isEmpty)
            #expect(failures.errors.map(\.code) == [.unavailable])

            let retry = try #require(failures.retry)
            retry()

            #expect(await onScreen { view.phase == .loading && ViewTree.texts(under: overlay) == ["Getting your offer ready"] })
            #expect(ViewTree.indicator(under: overlay) == nil)
            origin.release()
            #expect(await onScreen { view.phase == .showing })
            view.dismiss()
        }
    }
}
