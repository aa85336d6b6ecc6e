extension JourneyHost {
    /// The renderer this host drives, for a view that puts the renderer's surface on screen: a
    /// GTK view places a `WebKitRenderer`'s web view in its own widgets, as a view on Apple
    /// platforms adds the renderer's `WKWebView` to its hierarchy. The host still makes every
    /// call to it; a view only decides where its surface appears.
    public var renderer: any JourneyRenderer { driver.renderer }

    /// The group of hosts this one presents one at a time with. A view that puts up
    /// a window of its own before the content shows (a loading state) keeps one such window at
    /// a time per group, as the host keeps one presentation.
    public nonisolated var coordinator: PresentationCoordinator { seat.coordinator }

    /// Returns once a presentation asked for now may appear: at once, or at the end of the
    /// foreground grace when the app came back to the foreground (``setForeground(_:)``) less
    /// than ``JourneyConfiguration/foregroundGrace`` ago.
    ///
    /// ``present(context:preload:)`` waits the same grace before it shows the content; a view that puts
    /// up a window of its own first (an overlay with a loading state) waits here, so nothing of
    /// the journey appears within the grace.
    /// - Throws: ``HostError/Code/cancelled`` when the waiting task is cancelled.
    public func waitForAppearance() async throws(HostError) {
        try await waitOutForegroundGrace()
    }
}
