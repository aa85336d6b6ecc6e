import LarderCache
import LarderFormat

/// A journey revision on the stage (``PresentationStage``): the value that says what it is,
/// the lease that keeps its bundle, and whether the renderer currently holds it.
struct PreparedContent {
    var journey: PreparedJourney
    var content: RenderContent
    var loaded = false

    /// The lease on its bundle; two pieces of content share a bundle when they share it.
    var lease: BundleLease { content.lease }

    /// Ready to show: loaded, or presented directly (nothing to load ahead).
    var isReady: Bool { loaded || !journey.preloaded }

    /// Whether it is `journey`'s revision and bundle.
    func isSameContent(as journey: PreparedJourney) -> Bool {
        self.journey.bundle == journey.bundle && self.journey.revision == journey.revision
    }
}

extension PreparedContent: Equatable {
    /// The same journey value, the same lease (by identity) and the same load.
    static func == (lhs: PreparedContent, rhs: PreparedContent) -> Bool {
        lhs.journey == rhs.journey && lhs.lease === rhs.lease && lhs.loaded == rhs.loaded
    }
}
