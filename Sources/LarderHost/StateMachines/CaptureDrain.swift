import Foundation

/// When queued captures are delivered without being asked (captures queue up on
/// the device and drain when the connection returns): after a dismissal, on returning to the
/// foreground, after a successful answer from the origin that follows a failure (a request to
/// the origin or a delivery that failed), and when the connectivity signal says the network
/// came back (``ConnectivitySignal``), with no call of the app's. Each run delivers at most
/// ``batchesPerRun`` batches, in order; a trigger during a run asks for one more run after it
/// (unless it failed: the connection is gone again).
///
/// Backed off: a run that failed with events still queued sets a wait (``delay(failures:)``:
/// 2 s, doubling, at most 5 minutes) before the network's return may start another; a return
/// during the wait asks for one run at its end (``Action/wait(until:)``), and the end of the
/// wait (``retryDue()``) runs it while the network is still there. A failed run never starts
/// another by itself: the next trigger does, so a flapping network or a refusing endpoint
/// cannot make a loop.
///
/// A pure state machine: ``CaptureLane`` holds it, ``JourneyHost`` performs its actions
/// (`JourneyHost+Capture.swift`, `performDrain(_:)`), keeping the run and the wait's timer. It
/// never reads the clock: the host passes the time of the events that need it.
struct CaptureDrain: Sendable, Equatable {
    /// The most batches one run delivers.
    static let batchesPerRun = 10
    /// The first wait after a failed run, and the longest.
    static let firstDelay: Duration = .seconds(2)
    static let longestDelay: Duration = .seconds(5 * 60)

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
        /// Keep one timer that calls ``CaptureDrain/retryDue()`` at this date.
        case wait(until: Date)
        /// Nothing now.
        case none
    }

    /// A run is under way.
    private(set) var running = false
    /// A trigger arrived during the run: run once more after it.
    private(set) var again = false
    /// The last run stopped on a failure with events still queued.
    private(set) var lastFailed = false
    /// What the connectivity signal last said; nil before its first word.
    private(set) var online: Bool?
    /// Consecutive failed runs.
    private(set) var failures = 0
    /// The network's return starts no run before this time (a failed run's backoff).
    private(set) var notBefore: Date?
    /// A timer waits for ``notBefore``.
    private(set) var waiting = false

    /// The wait after `failures` consecutive failed runs (1 or more): 2 s, doubling, at most
    /// 5 minutes.
    static func delay(failures: Int) -> Duration {
        let doublings = min(max(failures - 1, 0), 16)
        return min(firstDelay * (1 << doublings), longestDelay)
    }

    /// Decides on a trigger.
    mutating func trigger(_ trigger: Trigger) -> Action {
        if case .originAnswered(let afterFailure) = trigger, !afterFailure, !lastFailed { return .none }
        return run()
    }

    /// The connectivity signal spoke: `available` at `now`. Its first word sets what it
    /// knows; a change from unavailable to available (the connection returned) starts a run,
    /// or, during a backoff, a wait for its end.
    mutating func networkChanged(available: Bool, now: Date) -> Action {
        let returned = available && online == false
        online = available
        guard returned else { return .none }
        if let notBefore, now < notBefore {
            guard !waiting else { return .none }
            waiting = true
            return .wait(until: notBefore)
        }
        return run()
    }

    /// The backoff's wait ended: a run, unless the network went away meanwhile.
    mutating func retryDue() -> Action {
        waiting = false
        guard online != false else { return .none }
        return run()
    }

    /// Decides when a run ended.
    /// - Parameters:
    ///   - failed: it stopped on a failure with events still queued.
    ///   - now: when it ended (the backoff counts from then).
    mutating func finished(failed: Bool, now: Date) -> Action {
        lastFailed = failed
        if failed {
            failures += 1
            notBefore = now.adding(Self.delay(failures: failures))
        } else {
            failures = 0
            notBefore = nil
        }
        defer { again = false }
        if again, !failed { return .deliver(maxBatches: Self.batchesPerRun) }
        running = false
        return .none
    }

    /// A run now, or once more after the one under way.
    private mutating func run() -> Action {
        if running {
            again = true
            return .none
        }
        running = true
        return .deliver(maxBatches: Self.batchesPerRun)
    }
}
