import LarderFormat

extension JourneyHost {
    /// Prepared content: the authorised revision, the lease that keeps its bundle, and whether
    /// the renderer currently holds it.
    struct Prepared {
        var journey: PreparedJourney
        /// The authorised configuration document; nil for stale or embedded content, which is
        /// never fresh.
        var document: JourneyDocument?
        var content: RenderContent
        var loaded: Bool

        /// Ready to show: loaded, or presented directly (nothing to load ahead).
        var isReady: Bool { loaded || !journey.preloaded }
    }
}
