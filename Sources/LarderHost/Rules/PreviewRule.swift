/// What a preview (``JourneyHost/preview(bundle:context:)``) decides: a given
/// version presented for QA, never recorded as the journey's revision.
///
/// Pure decisions over values; ``PresentationStage`` applies the dismissal one, the host the
/// error code.
enum PreviewRule: Sendable, Equatable {
    /// A revision was staged while the preview was open: it becomes the prepared content,
    /// loaded hidden when `preload`.
    case showStaged(preload: Bool)
    /// The prepared content is loaded hidden again, as it was before the preview took the
    /// renderer.
    case loadPreparedHidden
    /// The renderer stays unloaded: nothing prepared, or prepared for direct presentation.
    case leaveUnloaded

    /// The capture context key that marks a preview's captures (value `"true"`).
    static let captureKey = "larder:preview"

    /// What dismissing a preview restores.
    /// - Parameters:
    ///   - stagedPreloaded: nil when no revision was staged, else whether it is presented
    ///     prepared.
    ///   - preparedPreloaded: nil when nothing is prepared, else whether it is presented
    ///     prepared.
    static func afterDismissal(stagedPreloaded: Bool?, preparedPreloaded: Bool?) -> PreviewRule {
        if let stagedPreloaded { return .showStaged(preload: stagedPreloaded) }
        return preparedPreloaded == true ? .loadPreparedHidden : .leaveUnloaded
    }

    /// The error code for a bundle the cache lacks and the origin did not give: a 404 or
    /// 410 means the origin does not have it; anything else that it could not be reached.
    static func missingCode(originStatus: Int?) -> HostError.Code {
        switch originStatus {
        case 404, 410: .bundleNotFound
        default: .unavailable
        }
    }
}
