/// The outcome of a presentation from what happened in it.
///
/// A pure decision over values; ``PresentationStage`` records the session's purchase and
/// restore requests and takes it when the session ends (``Ending``), and the host publishes
/// the result (``JourneyHost/presentationResults()``, ``JourneyHost/waitForCompletion()``).
///
/// What the user did outranks how the session ended: a purchase requested makes it
/// `purchased`, else a restore requested makes it `restored`, whatever ended it (the app
/// typically handles the purchase, then calls ``JourneyHost/dismiss()``). Otherwise the ending
/// decides: the content's `complete` → completed, its `dismiss` → dismissed, the app
/// (``JourneyHost/dismiss()``, configuration change, logout, dispose) → ended by the app,
/// another host's presentation → replaced, a denial, a confirmed removal or the renderer
/// terminating → failed.
enum PresentationOutcomeRule {
    /// What ended the presentation.
    enum Ending: Sendable, Equatable {
        /// The content sent `complete`.
        case contentCompleted
        /// The content sent `dismiss`.
        case contentDismissed
        /// The app: ``JourneyHost/dismiss()``, ``JourneyHost/updateConfiguration(_:)``,
        /// ``JourneyHost/logout()``, ``JourneyHost/dispose()``.
        case app
        /// Another host presented (``PresentationCoordinator``).
        case replaced
        /// The origin denied or removed the journey, or the renderer terminated.
        case failure
    }

    /// The decision.
    /// - Parameters:
    ///   - ending: what ended it.
    ///   - purchaseRequested: the content sent `purchase` during the session.
    ///   - restoreRequested: the content sent `restore` during the session.
    static func decide(ending: Ending, purchaseRequested: Bool, restoreRequested: Bool) -> PresentationOutcome {
        if purchaseRequested { return .purchased }
        if restoreRequested { return .restored }
        return switch ending {
        case .contentCompleted: .completed
        case .contentDismissed: .dismissed
        case .app: .endedByApp
        case .replaced: .replaced
        case .failure: .failed
        }
    }
}
