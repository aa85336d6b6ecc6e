import CWebKitGTK
import Foundation
import LarderHost
import LarderJourneyView
import LarderSystem
import LarderTestSupport
import LarderWebKit
import Testing

extension WebKitTests {
    /// Issue 40: the journey view as a person meets it, under Xvfb: what the windows show (their
    /// pixels read back from the display), the widgets and their accessible names, the host's
    /// presentation behind them.
    @Suite struct JourneyViewOnScreen {
        @Test func anInlineViewPresentsWhenMappedAndDismissesWhenUnmapped() async throws {
            try await JourneyViewWorld.run { world in
                let (host, renderer) = try world.host()
                let app = world.appWindow()
                let view = try JourneyView(host: host)
                let seen = Seen(view)
                let widget = ViewTree.widget(view.widget)
                #expect(view.phase == .idle)

                gtk_container_add(larder_container(app), widget)

                #expect(await onScreen { view.phase == .showing })
                let session = try #require(view.session)
                #expect(await host.presentationState == .presented(session))
                // The renderer's own web view, prepared hidden, is the one on show: no other.
                let webView = try #require(renderer.webViewWidget)
                #expect(ViewTree.webViews(under: widget) == [webView])
                #expect(gtk_widget_get_mapped(webView) != 0)
                #expect(renderer.loads == 1)
                #expect(try await renderer.evaluate("document.visibilityState") == .string("visible"))
                let shown = await WindowPicture.settled(app)
                #expect((shown?.colours ?? 0) > 100, "the flow is drawn in the app's window")
                Shots.keep(shown, as: "inline-ready")

                // The view leaves: the presentation ends and the web view goes back, hidden.
                let awaited = Task { @WebKitActor in await view.result() }
                gtk_widget_hide(app)
                #expect(await onScreen { await host.presentationState == .hidden })
                let result = await awaited.value
                #expect(result?.session == session)
                #expect(result?.outcome == .endedByApp)
                #expect(result?.screen == JourneyScreen(id: "index.html"))
                #expect(seen.results == [try #require(result)])
                #expect(await onScreen { ViewTree.webViews(under: widget).isEmpty })
                #expect(try await renderer.evaluate("document.visibilityState") == .string("hidden"))

                // It appears again: a new session, in the same web view, reset rather than loaded.
                gtk_widget_show(app)
                #expect(await onScreen { view.phase == .showing })
                #expect(view.session.map { $0.id != session.id } == true)
                #expect(ViewTree.webViews(under: widget) == [webView])
                #expect(renderer.loads == 1)

                // The app's window goes with the view in it: the renderer keeps its web view.
                world.destroy(app)
                #expect(await onScreen { await host.presentationState == .hidden })
                #expect(renderer.webViewWidget == webView)
                #expect(gtk_widget_get_parent(webView).map { larder_is_window($0) != 0 } == true)
                #expect(try await renderer.evaluate("1 + 1") == .int(2))
            }
        }

        @Test func anOverlayShowsTheLoadingStateThenTheFlowAboveTheApp() async throws {
            try await JourneyViewWorld.run { world in
                let origin = try world.origin([.hold])
                let (host, renderer) = try world.host(origin: origin.url, embedded: false)
                let app = world.labelledAppWindow()
                let view = try JourneyView(host: host)
                var results = view.results.makeAsyncIterator()

                await view.present(over: UnsafeMutableRawPointer(app))

                let overlay = try #require(view.overlayWindow)
                #expect(gtk_window_get_transient_for(larder_window(overlay)) == larder_window(app))
                #expect(gtk_window_get_modal(larder_window(overlay)) != 0)
                #expect(await onScreen { gtk_widget_get_mapped(overlay) != 0 && view.phase == .loading })
                // The loading state: a progress indicator with no text, named for assistive technologies.
                #expect(await onScreen { ViewTree.indicator(under: overlay) != nil })
                let indicator = ViewTree.indicator(under: overlay)
                #expect(indicator?.role == "progress bar")
                #expect(indicator?.name == BuiltInStates.loadingName)
                #expect(indicator?.description == BuiltInStates.loadingDescription)
                #expect(ViewTree.texts(under: overlay).isEmpty)
                try await Task.sleep(for: .milliseconds(200))
                let loading = try #require(WindowPicture.of(overlay))
                #expect((loading.width, loading.height) == (JourneyViewWorld.viewport.width, JourneyViewWorld.viewport.height))
                #expect(loading.colours > 2, "the indicator is drawn")
                Shots.keep(loading, as: "overlay-loading")

                origin.release()

                #expect(await onScreen { view.phase == .showing })
                #expect(ViewTree.webViews(under: overlay) == [try #require(renderer.webViewWidget)])
                let ready = try #require(await WindowPicture.settled(overlay))
                Shots.keep(ready, as: "overlay-ready")
                #expect((ready.width, ready.height) == (JourneyViewWorld.viewport.width, JourneyViewWorld.viewport.height))
                // The window shows the page the renderer rendered: below its hero image (which
                // floats up and down unless the user asked for reduced motion) and left of where
                // GTK's overlay scrollbar fades in and out, all but a few pixels of the image's
                // glow (the engine's snapshot is painted apart).
                let page = try #require(WindowPicture.decode(png: try await renderer.screenshot()))
                let still = (rows: 360..<ready.height, columns: 0..<(ready.width - 16))
                #expect(ready.differingPixels(from: page, rows: still.rows, columns: still.columns) < 200)
                // Above the app: what the screen shows there is the overlay.
                var x: gint = 0
                var y: gint = 0
                gdk_window_get_origin(gtk_widget_get_window(overlay), &x, &y)
                let screen = try #require(WindowPicture.ofScreen(x: Int(x), y: Int(y), width: ready.width, height: ready.height))
                #expect(screen.differingPixels(from: ready, rows: still.rows, columns: still.columns) == 0)
                Shots.keep(WindowPicture.ofScreen(x: 0, y: 0, width: 820, height: 920), as: "overlay-over-the-app")

                // The flow ends (the page's skip button): its result, and the overlay closes.
                _ = try await renderer.evaluate("document.querySelector('.skip').click()")
                let result = await results.next()
                #expect(result?.outcome == .dismissed)
                #expect(result?.screen?.id == "index.html")
                #expect(await onScreen { view.overlayWindow == nil && view.phase == .ended })
                #expect(await host.presentationState == .hidden)
            }
        }

        @Test func theErrorStateShowsAGenericMessageAndTryAgainPreparesAgain() async throws {
            try await JourneyViewWorld.run { world in
                let app = world.appWindow()

                // Not ready within the presentation deadline: the origin never answers.
                let silent = try world.origin([.never])
                let (late, _) = try world.host(origin: silent.url, embedded: false, deadline: .seconds(1.5))
                let deadlineView = try JourneyView(host: late)
                let lateSeen = Seen(deadlineView)
                await deadlineView.present(over: UnsafeMutableRawPointer(app))
                #expect(await onScreen { deadlineView.phase == .failed })
                let lateWindow = try #require(deadlineView.overlayWindow)
                #expect(lateSeen.errors.map(\.code) == [.deadlineExceeded])
                #expect(ViewTree.texts(under: lateWindow) == [BuiltInStates.errorTitle, BuiltInStates.errorMessage, BuiltInStates.closeLabel, BuiltInStates.retryLabel])
                #expect(Set(ViewTree.buttons(under: lateWindow).keys) == [BuiltInStates.retryLabel, BuiltInStates.closeLabel])
                let error = await WindowPicture.settled(lateWindow)
                #expect((error?.colours ?? 0) > 10)
                Shots.keep(error, as: "overlay-error")
                // Close: the overlay goes, without a result.
                gtk_button_clicked(larder_button(try #require(ViewTree.buttons(under: lateWindow)[BuiltInStates.closeLabel])))
                #expect(deadlineView.overlayWindow == nil)
                #expect(lateSeen.results.isEmpty)

                // Unavailable (503, may ask again at once), then Try again: the view prepares again.
                let origin = try world.origin([.unavailable, .hold])
                let (host, renderer) = try world.host(origin: origin.url, embedded: false)
                let view = try JourneyView(host: host)
                let seen = Seen(view)
                await view.present(over: UnsafeMutableRawPointer(app))
                let overlay = try #require(view.overlayWindow)
                #expect(await onScreen { view.phase == .failed })
                let failure = try #require(seen.errors.first)
                #expect(failure.code == .unavailable)
                // The error's own words are for the app's logs, never on screen.
                #expect(!ViewTree.texts(under: overlay).contains { $0.contains("503") || failure.message.contains($0) })
                #expect(origin.documentRequests == 1)

                gtk_button_clicked(larder_button(try #require(ViewTree.buttons(under: overlay)[BuiltInStates.retryLabel])))

                #expect(await onScreen { view.phase == .loading && ViewTree.indicator(under: overlay) != nil })
                #expect(await onScreen { origin.documentRequests == 2 })
                origin.release()
                #expect(await onScreen { view.phase == .showing })
                #expect(ViewTree.webViews(under: overlay) == [try #require(renderer.webViewWidget)])
                #expect(seen.errors.count == 1)
                view.dismiss()
                #expect(await onScreen { seen.results.map(\.outcome) == [.endedByApp] })
            }
        }
    }
}
