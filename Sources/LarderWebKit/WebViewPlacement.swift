import CWebKitGTK

/// Where a renderer's web view shows while its content is visible, instead of the renderer's
/// own toplevel window: a view's container (LarderJourneyView's `JourneyView`).
///
/// The renderer keeps the web view; a placement only lends it a place. While the content is
/// hidden (prepared, reset after a dismissal, unloaded) the view sits in the renderer's own
/// unmapped window at the viewport's size, as without a placement; when the host shows the
/// content, ``place(_:)`` gets the web view, and ``withdraw(_:)`` gives it back when the host
/// hides it again. No second web view is ever made.
@WebKitActor
package protocol WebViewPlacement: AnyObject {
    /// Puts `widget` (the `WebKitWebView`, out of any container, visible) where it shows.
    /// - Returns: false to leave it hidden in the renderer's window (the place is gone).
    func place(_ widget: UnsafeMutablePointer<GtkWidget>) -> Bool

    /// Takes `widget` out of its place (`gtk_container_remove`); the renderer puts it back in
    /// its own unmapped window.
    func withdraw(_ widget: UnsafeMutablePointer<GtkWidget>)
}

extension WebKitRenderer {
    /// Shows the web view in `placement` whenever the content is visible (nil: in the
    /// renderer's own window again). A web view visible now moves at once; one placed in an
    /// earlier placement is withdrawn from it first.
    package func setPlacement(_ placement: (any WebViewPlacement)?) {
        self.placement = placement
        webView?.setPlacement(placement)
    }

    /// The renderer's place, if one was set.
    package var currentPlacement: (any WebViewPlacement)? { placement }

    /// The web view's widget (the `WebKitWebView`), nil before ``start(bridge:)`` and after
    /// ``stop()``: to tell it from any other widget.
    package var webViewWidget: UnsafeMutablePointer<GtkWidget>? {
        webView.map { larder_widget($0.view) }
    }

    /// Puts the web view back in the renderer's own unmapped window now, whatever the host
    /// does next: for a placement whose widgets are about to be destroyed. The content stays
    /// hidden until the host shows it again.
    package func parkWebView() {
        webView?.park()
    }
}

extension WebView {
    /// Sets where the view shows while visible (see ``WebViewPlacement``).
    func setPlacement(_ new: (any WebViewPlacement)?) {
        if let placedIn, placedIn !== new { park() }
        placement = new
        guard !destroyed, wantsVisible else { return }
        setVisible(true)
    }

    /// Moves the view from its window into `placement`; if the placement declines it, the view
    /// stays in its unmapped window.
    func place(in placement: any WebViewPlacement) {
        if placedIn === placement { return }
        park()
        let widget: UnsafeMutablePointer<GtkWidget> = larder_widget(view)
        // WebView holds its own reference (g_object_ref_sink at creation): the removal from
        // the window does not finalise it.
        gtk_container_remove(larder_container(window), widget)
        if placement.place(widget) {
            placedIn = placement
        } else {
            gtk_container_add(larder_container(window), widget)
        }
    }

    /// Moves the view back into its own unmapped window (nothing when it is there).
    func park() {
        guard let placedIn else { return }
        let widget: UnsafeMutablePointer<GtkWidget> = larder_widget(view)
        placedIn.withdraw(widget)
        self.placedIn = nil
        if gtk_widget_get_parent(widget) == nil { gtk_container_add(larder_container(window), widget) }
    }
}
