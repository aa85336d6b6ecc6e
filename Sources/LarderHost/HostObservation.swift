import Foundation

/// What the host publishes about itself: readiness, the presentation state and download
/// progress as streams, and the timeline of what it did and why.
///
/// Owned by and isolated to one ``JourneyHost``; it holds no other component's state. The host
/// tells it what changed, and it yields to subscribers only when a value really changes.
final class HostObservation {
    /// How ready the host is to present.
    private(set) var readiness: Readiness = .idle
    private let readinessObservers = Broadcast<Readiness>()
    /// The last presentation state published.
    private var presentation: PresentationState = .hidden
    private let presentationObservers = Broadcast<PresentationState>()
    /// Download progress of the latest preparation or warm-up.
    let progressMeter = ProgressMeter()
    /// What the host did and why (``JourneyHost/timeline()``).
    private var log = Timeline()
    private let clock: any HostClock

    init(clock: any HostClock) { self.clock = clock }

    /// The timeline's entries, oldest first.
    var entries: [TimelineEntry] { log.entries }

    /// The current readiness, then every change, until ``finish()``.
    func readinessUpdates() -> AsyncStream<Readiness> { readinessObservers.subscribe(current: readiness) }

    /// The current presentation state, then every change, until ``finish()``.
    func presentationUpdates() -> AsyncStream<PresentationState> { presentationObservers.subscribe(current: presentation) }

    /// Publishes `value` when it differs from the current readiness.
    func setReadiness(_ value: Readiness) {
        guard value != readiness else { return }
        readiness = value
        readinessObservers.yield(value)
    }

    /// Publishes a presentation state when it differs from the last one published.
    func presentationChanged(to value: PresentationState) {
        guard value != presentation else { return }
        presentation = value
        presentationObservers.yield(value)
    }

    /// Adds one of the host's own entries to the timeline.
    func note(_ kind: TimelineEntry.Kind, _ detail: String) {
        log.append(TimelineEntry(time: clock.now, kind: kind, detail: detail), from: .host)
    }

    /// Adds an entry a message from the content caused (its own bound: see ``JourneyHost/timeline()``).
    func noteContent(_ kind: TimelineEntry.Kind, _ detail: String) {
        log.append(TimelineEntry(time: clock.now, kind: kind, detail: detail), from: .content)
    }

    /// Ends every subscriber's stream (disposal).
    func finish() {
        readinessObservers.finish()
        presentationObservers.finish()
        progressMeter.close()
    }
}
