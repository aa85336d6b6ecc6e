/// What the host does when its renderer's engine ended by itself (``RendererEvent/terminated(reason:)``):
/// the content it held is gone, so nothing may count as loaded, and an open presentation
/// shows nothing any more.
///
/// One pure decision over the stage's state; `PresentationStage` applies it and
/// ``JourneyHost`` performs what the stage returns. The next
/// ``JourneyHost/prepare(forceRefresh:)`` (or ``JourneyHost/present(context:preload:)``) loads the prepared content
/// again from the cache, as after a memory warning.
public enum RendererTermination: Sendable, Equatable {
    /// A presentation was open: it ends (the app hears `presentation` go hidden), and the
    /// preparation is marked unloaded.
    case endPresentation
    /// Content was loaded hidden: the preparation is marked unloaded.
    case markUnloaded
    /// Nothing was loaded (direct presentation not shown, nothing prepared): only the timeline
    /// says so.
    case record

    /// The decision.
    /// - Parameters:
    ///   - presented: a presentation is open.
    ///   - loaded: the prepared content is loaded in the renderer.
    public static func decide(presented: Bool, loaded: Bool) -> RendererTermination {
        if presented { return .endPresentation }
        return loaded ? .markUnloaded : .record
    }
}
