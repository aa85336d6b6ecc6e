import Foundation

/// When the host next asks the origin by itself (one refresh scheduled when due, and only
/// while in the foreground): the one refresh task kept (a timer, or a refresh under way),
/// when the next refresh is due, whether the app is in the foreground (refreshes run only
/// there; one due in the background waits for the resume), and when the app last came back
/// (``ForegroundGrace``).
///
/// A pure state machine, as ``CaptureDrain``: each event is a `mutating func` returning an
/// ``Action``. ``OriginLink`` holds it beside the refresh task; ``JourneyHost`` feeds it and
/// performs what it returns in one place (`JourneyHost+Refresh.swift`, `schedule(_:)`), keeping
/// the task (it calls back into the host). The machine never reads the clock: the host passes
/// the time of the events that need it.
struct RefreshSchedule: Sendable, Equatable {
    /// What the host does after an event.
    enum Action: Sendable, Equatable {
        /// Nothing now.
        case none
        /// Cancel the refresh task kept and keep instead a timer that asks the origin at this
        /// date (in the foreground only, like every timer).
        case startTimer(at: Date)
        /// Cancel the refresh task kept and keep instead one that asks the origin now, even in
        /// the background: content in its window's second half was just used.
        case startRefresh
        /// Ask the origin now, in the caller (a resume that found the refresh due).
        case refresh
        /// Cancel the refresh task kept, if any.
        case cancelTimer
        /// Let go of the refresh task kept without cancelling it: a refresh is beginning, and it
        /// may be that task's own.
        case releaseTimer
    }

    /// Whether the app is in the foreground.
    private(set) var foreground = true
    /// When the app last came back to the foreground (nil: it has not, since the host
    /// started); a presentation waits out ``ForegroundGrace`` from then.
    private(set) var returnedToForeground: Date?
    /// When the next refresh is due: the timer's date in the foreground; in the background the
    /// earliest one asked for, which the resume takes up.
    private(set) var due: Date?
    /// A refresh task is kept: a timer, or a refresh under way.
    private(set) var taskKept = false

    /// The app came back to the foreground at `now`: a refresh due by then runs at once, one
    /// due later gets its timer. `contentDue` is when the shown or prepared content next needs
    /// a refresh, asked for when none was left due from the background.
    mutating func foregrounded(at now: Date, contentDue: Date?) -> Action {
        guard !foreground else { return .none }
        foreground = true
        returnedToForeground = now
        guard let next = due ?? contentDue else { return .none }
        due = nil
        if next <= now { return .refresh }
        return scheduled(at: next)
    }

    /// The app went to the background: the timer stops; when it was due stays, for the resume.
    mutating func backgrounded() -> Action {
        guard foreground else { return .none }
        foreground = false
        let kept = due
        let action = cancelled()
        due = kept
        return action
    }

    /// A refresh is asked for at `date` (a preparation, a renewal): one is kept, the earliest.
    /// In the background only the date is kept, for the resume.
    mutating func scheduled(at date: Date) -> Action {
        guard foreground else {
            due = min(due ?? date, date)
            return .none
        }
        if taskKept, let due, due <= date { return .none }
        due = date
        taskKept = true
        return .startTimer(at: date)
    }

    /// Content in its window's second half was just used: refresh now, in the background of
    /// the caller, instead of any refresh scheduled.
    mutating func refreshRequested() -> Action {
        due = nil
        taskKept = true
        return .startRefresh
    }

    /// A refresh begins (the timer's, a resume's, an explicit one): nothing stays scheduled.
    mutating func fired() -> Action {
        due = nil
        taskKept = false
        return .releaseTimer
    }

    /// The refresh scheduled goes (disposal, a configuration change, a denial, a logout).
    mutating func cancelled() -> Action {
        due = nil
        taskKept = false
        return .cancelTimer
    }
}
