/// What dismissal does with the staged and the shown content: a revision staged while the
/// presentation was open becomes the prepared one; otherwise the renderer resets to the first
/// screen, is unloaded, or content is prepared afresh.
///
/// A pure decision over values; ``PresentationStage`` applies it when a session is dismissed
/// (``JourneyHost/dismiss()``), and the host performs the stage's actions, then publishes the
/// prepared content's readiness and delivers queued captures.
enum DismissalRule: Sendable, Equatable {
    /// A revision was staged during the presentation: it becomes the prepared content (the
    /// shown one is released); loaded hidden when `preload`, else the renderer is unloaded.
    case showStaged(preload: Bool)
    /// What was shown was invalidated while open (another embedded default): the renderer is
    /// unloaded and the next presentation is prepared afresh, in the background.
    case prepareAfresh
    /// Prepared presentation: the renderer resets to the first screen, hidden, and stays
    /// loaded when it still holds the prepared content.
    case reset
    /// Direct presentation: the renderer is unloaded.
    case unload

    /// The decision.
    /// - Parameters:
    ///   - stagedPreloaded: nil when no revision was staged, else whether it is presented
    ///     prepared.
    ///   - hasPrepared: content is prepared.
    ///   - shownPreloaded: the content shown was presented prepared.
    static func decide(stagedPreloaded: Bool?, hasPrepared: Bool, shownPreloaded: Bool) -> DismissalRule {
        if let stagedPreloaded { return .showStaged(preload: stagedPreloaded) }
        if !hasPrepared { return .prepareAfresh }
        return shownPreloaded ? .reset : .unload
    }
}
