import CWebKitGTK
import Foundation
import LarderHost
import LarderWebKit

extension JourneyView {
    /// Presents the view in a window of its own over `parent` (an overlay): transient
    /// for it, modal, kept above it, centred on it and as large as the flow's viewport. The
    /// window appears once the foreground grace has passed (`JourneyHost.waitForAppearance()`)
    /// and closes the overlay of another host of the same coordinator that is still loading or
    /// failed (one shown is replaced by the host when this one shows). Then, as for any
    /// appearance, the view presents: loading state, the flow, or the error state with Try
    /// again and Close. It closes when the flow ends (``onResult``), when the user closes it or
    /// ``dismiss()`` is called.
    ///
    /// Returns once the window is up, or at once when it is already up or the view's widget is
    /// inline in a container of the app (or was destroyed); a ``dismiss()`` during the grace
    /// puts nothing up.
    /// - Parameter parent: the app's window (`GtkWindow *`); nil for a window of its own.
    public func present(over parent: UnsafeMutableRawPointer?) async {
        guard overlay == nil, overlayPending == nil, !isDestroyed, gtk_widget_get_parent(pages.stack) == nil else { return }
        let ticket = UUID()
        overlayPending = ticket
        do { try await host.waitForAppearance() } catch {
            if overlayPending == ticket { overlayPending = nil }
            return
        }
        let viewport = (await host.renderer as? WebKitRenderer)?.configuration.viewport ?? .phone
        let title = await host.configuration.journeyID
        guard overlayPending == ticket, overlay == nil, !isDestroyed, gtk_widget_get_parent(pages.stack) == nil else { return }
        overlayPending = nil
        OverlayGroup.takeOver(host.coordinator, by: self)
        let window = OverlayWindow(parent: parent, viewport: viewport, title: title, content: pages.stack) { [weak self] in self?.dismiss() }
        overlay = window
        window.show()
    }

    /// The overlay window (a `GtkWindow *`) while the view is presented in one.
    package var overlayWindow: UnsafeMutablePointer<GtkWidget>? { overlay?.window }

    /// Closes the overlay, if any: the window unmaps (the view leaves, and dismisses) and goes.
    func closeOverlay() {
        guard let overlay else { return }
        self.overlay = nil
        OverlayGroup.leave(host.coordinator, by: self)
        overlay.close()
        onOverlayClosed?()
    }
}
