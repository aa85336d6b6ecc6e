import Foundation

/// What the host publishes about itself: readiness, the presentation state, presentation
/// results, the screen on show and download progress as streams, the content's messages for
/// the app, and the timeline of what it did and why.
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
    /// Ended presentations, as they end.
    private let resultObservers = Broadcast<PresentationResult>()
    /// The screen on show (nil while hidden).
    private var screen: JourneyScreen?
    private let screenObservers = Broadcast<JourneyScreen?>()
    /// Download progress of the latest preparation or warm-up.
    let progressMeter = ProgressMeter()
    /// What the host did and why (``JourneyHost/timeline()``).
    private var log = Timeline()
    /// Where ``JourneyHost/messages`` come from.
    private let appMessages: AsyncStream<BridgeMessage>.Continuation
    private let clock: any HostClock

    /// - Parameter messages: the continuation of ``JourneyHost/messages``.
    init(clock: any HostClock, messages: AsyncStream<BridgeMessage>.Continuation) {
        self.clock = clock
        appMessages = messages
    }

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

    /// Every presentation result from now on, until ``finish()``.
    func presentationResults() -> AsyncStream<PresentationResult> { resultObservers.subscribe() }

    /// The result of the presentation that ended last.
    private(set) var lastResult: PresentationResult?

    /// Publishes an ended presentation's result.
    func presentationEnded(_ result: PresentationResult) {
        lastResult = result
        resultObservers.yield(result)
    }

    /// The screen on show, then every change, until ``finish()``.
    func screenUpdates() -> AsyncStream<JourneyScreen?> { screenObservers.subscribe(current: screen) }

    /// Publishes the screen on show when it differs from the last one published.
    func screenChanged(to value: JourneyScreen?) {
        guard value != screen else { return }
        screen = value
        screenObservers.yield(value)
    }

    /// Adds one of the host's own entries to the timeline.
    func note(_ kind: TimelineEntry.Kind, _ detail: String) {
        log.append(TimelineEntry(time: clock.now, kind: kind, detail: detail), from: .host)
    }

    /// Adds an entry a message from the content caused (its own bound: see ``JourneyHost/timeline()``).
    func noteContent(_ kind: TimelineEntry.Kind, _ detail: String) {
        log.append(TimelineEntry(time: clock.now, kind: kind, detail: detail), from: .content)
    }

    /// Passes a message from the content on to the app (``JourneyHost/messages``).
    func deliver(_ message: BridgeMessage) { appMessages.yield(message) }

    /// Ends every subscriber's stream and the app's messages (disposal).
    func finish() {
        readinessObservers.finish()
        presentationObservers.finish()
        resultObservers.finish()
        screenObservers.finish()
        progressMeter.close()
        appMessages.finish()
    }
}
