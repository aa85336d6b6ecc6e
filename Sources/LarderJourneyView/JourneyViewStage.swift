import LarderHost

/// What a ``JourneyView`` shows and asks of its host, as a state machine: each event (the
/// widget appeared or left, the host answered, the flow ended, the user pressed Try again, the
/// renderer lent or took back its web view) changes the state and returns the actions the view
/// performs, in order. No GTK and no host here: the view performs the actions in one place
/// (``JourneyView/perform(_:)``).
struct JourneyViewStage {
    /// Where the view is.
    enum Phase: Equatable, Sendable {
        /// Not on screen, or left it: nothing is asked of the host.
        case idle
        /// On screen; the host prepares and presents (the built-in loading state).
        case loading
        /// The host shows the flow in this session.
        case showing(session: String)
        /// The last attempt failed, or the flow on show failed: the error state, with Try again.
        case failed
        /// The flow ended (or the app dismissed it); nothing more until the view appears again.
        case ended
    }

    /// The page of the view on screen.
    enum Page: String, Equatable, Sendable {
        case loading, error, content, empty
    }

    /// What the view does.
    enum Action {
        /// Asks the host to present (``JourneyHost/present(context:)``), as attempt `attempt`;
        /// an earlier attempt still running is cancelled.
        case present(attempt: Int)
        /// Cancels the attempt in progress.
        case cancelPresenting
        /// Ends the host's presentation (``JourneyHost/dismiss()``).
        case dismissHost
        /// Waits for the end of `session` (``JourneyHost/waitForCompletion()``).
        case awaitEnd(session: String)
        /// Shows this page.
        case show(Page)
        /// Gives the app the error, for its logs (never shown as text).
        case report(HostError)
        /// Gives the app the flow's result (callback, stream and the awaited value).
        case deliver(PresentationResult)
        /// The appearance ended without a presentation: whoever awaits a result gets nil.
        case endWithoutResult
        /// Closes the overlay window, if the view has one.
        case closeOverlay
    }

    private(set) var phase: Phase = .idle
    /// Whether the widget is mapped (on screen).
    private(set) var isMapped = false
    /// Whether the renderer's web view sits in the view now.
    private(set) var isPlaced = false
    /// The attempt during which it was placed: a web view left from a flow that failed (its web
    /// process ended) is not the content of the next attempt.
    private var placedInAttempt = 0
    /// The number of the current attempt: answers of an earlier one are late and ignored.
    private(set) var attempt = 0
    /// The session the view opened and has not seen end.
    private(set) var openSession: String?
    /// The attempt whose content was on screen when the view left, before the host's answer
    /// named its session: the person saw the flow, so its end is a result like any other.
    private(set) var leftWhileShown: Int?
    /// The error the error state is about.
    private(set) var error: HostError?

    /// Whether a presentation's result is still to come: a session the view opened, or one
    /// whose content was on screen when the view left.
    var resultPending: Bool { openSession != nil || leftWhileShown != nil }

    /// The page the view shows in its phase.
    var page: Page {
        switch phase {
        case .loading: isPlaced && placedInAttempt == attempt ? .content : .loading
        case .showing: isPlaced ? .content : .empty
        case .failed: .error
        case .idle, .ended: .empty
        }
    }

    /// The widget was mapped: the view appeared, and presents (`present()` when it appears).
    /// Mapped again while already presenting: nothing new.
    mutating func mapped() -> [Action] {
        isMapped = true
        guard phase == .idle || phase == .ended else { return [] }
        return startAttempt()
    }

    /// The widget was unmapped: the view left, and its presentation ends (`dismiss()` when it
    /// leaves). An attempt in progress is cancelled (and, should it have
    /// opened a session all the same, dismissed).
    mutating func unmapped() -> [Action] {
        isMapped = false
        return leave()
    }

    /// The app (or the user, closing the overlay) dismissed the view: as when it leaves, and
    /// the view is done until it appears again; an overlay closes.
    mutating func dismissed() -> [Action] {
        let actions = leave()
        phase = .ended
        return actions + [.show(page), .closeOverlay]
    }

    /// The host presented `session` in answer to attempt `attempt`.
    mutating func presented(session: String, attempt: Int) -> [Action] {
        if attempt == leftWhileShown {
            // Its dismissal is already on its way to the host, after this presentation.
            leftWhileShown = nil
            openSession = session
            return [.awaitEnd(session: session)]
        }
        guard attempt == self.attempt, phase == .loading else {
            // Late: the view left (or tried again) meanwhile; a session opened all the same ends.
            return [.dismissHost]
        }
        phase = .showing(session: session)
        openSession = session
        return [.awaitEnd(session: session), .show(page)]
    }

    /// The host could not present in attempt `attempt` (not ready within the presentation
    /// deadline, nothing to show, the renderer failed).
    mutating func presentFailed(_ error: HostError, attempt: Int) -> [Action] {
        if attempt == leftWhileShown {
            leftWhileShown = nil
            return [.endWithoutResult]
        }
        guard attempt == self.attempt, phase == .loading else { return [] }
        phase = .failed
        self.error = error
        return [.show(page), .report(error)]
    }

    /// A presentation of the host ended with `result`. The view's own session delivers it; if
    /// it is on show, the view shows the error state when it `failed` (`failure` says why: the
    /// renderer's content ended, the origin denied it) and is otherwise done (an overlay
    /// closes).
    mutating func ended(_ result: PresentationResult, failure: HostError?) -> [Action] {
        guard result.session.id == openSession else { return [] }
        openSession = nil
        guard phase == .showing(session: result.session.id) else { return [.deliver(result)] }
        if result.outcome == .failed, isMapped {
            let error = failure ?? HostError(.renderer, "the presentation failed")
            phase = .failed
            self.error = error
            return [.deliver(result), .show(page), .report(error)]
        }
        phase = .ended
        return [.deliver(result), .show(page), .closeOverlay]
    }

    /// The user pressed Try again: the view prepares and presents again.
    mutating func retried() -> [Action] {
        guard phase == .failed, isMapped else { return [] }
        return startAttempt()
    }

    /// The renderer put its web view in the view (the host shows the content).
    mutating func placed() -> [Action] {
        isPlaced = true
        placedInAttempt = attempt
        return [.show(page)]
    }

    /// The renderer took its web view back (the host hid the content).
    mutating func withdrawn() -> [Action] {
        isPlaced = false
        return [.show(page)]
    }

    private mutating func startAttempt() -> [Action] {
        phase = .loading
        attempt += 1
        error = nil
        return [.show(page), .present(attempt: attempt)]
    }

    private mutating func leave() -> [Action] {
        switch phase {
        case .loading where page == .content:
            // The host already shows the content, but its answer (the session) has not come:
            // the presentation is let finish and then dismissed, and its result follows.
            leftWhileShown = attempt
            phase = .idle
            return [.dismissHost]
        case .loading:
            phase = .idle
            return [.cancelPresenting, .dismissHost, .endWithoutResult]
        case .showing:
            phase = .idle
            // The result comes from the host once the presentation ended (awaitEnd).
            return [.dismissHost]
        case .failed:
            // A failed flow delivered its result already; a failed attempt had none.
            phase = .idle
            return [.endWithoutResult]
        case .idle, .ended:
            return []
        }
    }
}
