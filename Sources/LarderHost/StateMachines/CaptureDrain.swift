/// When queued captures are delivered without being asked (seed 002: "Analytics queue up on
/// the device and drain when the connection returns"): after a dismissal, on returning to the
/// foreground, and after a successful answer from the origin that follows a failure (a
/// request to the origin or a delivery that failed). Each run delivers at most
/// ``batchesPerRun`` batches, in order; a trigger during a run asks for one more run after it
/// (unless it failed: the connection is gone again).
///
/// A pure state machine: ``CaptureLane`` holds it, ``JourneyHost`` performs its actions.
struct CaptureDrain: Sendable, Equatable {
    /// The most batches one run delivers.
    static let batchesPerRun = 10

    enum Trigger: Sendable, Equatable {
        /// A presentation was dismissed.
        case dismissed
        /// The app returned to the foreground.
        case foregrounded
        /// The origin answered a request successfully (a 200 or a 304); `afterFailure` when the
        /// scope's previous request had failed.
        case originAnswered(afterFailure: Bool)
    }

    enum Action: Sendable, Equatable {
        /// Deliver queued events, at most this many batches.
        case deliver(maxBatches: Int)
        /// Nothing now.
        case none
    }

    /// A run is under way.
    private(set) var running = false
    /// A trigger arrived during the run: run once more after it.
    private(set) var again = false
    /// The last run stopped on a failure with events still queued.
    private(set) var lastFailed = false

    /// Decides on a trigger.
    mutating func trigger(_ trigger: Trigger) -> Action {
        if case .originAnswered(let afterFailure) = trigger, !afterFailure, !lastFailed { return .none }
        if running {
            again = true
            return .none
        }
        running = true
        return .deliver(maxBatches: Self.batchesPerRun)
    }

    /// Decides when a run ended.
    /// - Parameter failed: it stopped on a failure with events still queued.
    mutating func finished(failed: Bool) -> Action {
        lastFailed = failed
        defer { again = false }
        if again, !failed { return .deliver(maxBatches: Self.batchesPerRun) }
        running = false
        return .none
    }
}
