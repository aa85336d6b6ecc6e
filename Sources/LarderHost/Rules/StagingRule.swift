/// Staging: a revision published while a presentation is open never
/// replaces what is on screen; it is staged, replacing any revision staged before, and shown
/// after dismissal. With no presentation open it is prepared at once.
///
/// A pure decision over values; ``JourneyHost`` performs what it returns, and ``DismissalRule``
/// says what dismissal does with the staged revision.
enum StagingRule {
    /// Where a newly adopted revision goes.
    enum Placement: Sendable, Equatable {
        /// Staged for after dismissal (any revision staged before is released).
        case stage
        /// Prepared now, replacing the prepared content: loaded hidden when prepared
        /// presentation applies, else ready at once.
        case prepareNow
    }

    /// Where a newly adopted revision goes.
    /// - Parameter presentationOpen: a presentation is open.
    static func placement(presentationOpen: Bool) -> Placement { presentationOpen ? .stage : .prepareNow }
}
