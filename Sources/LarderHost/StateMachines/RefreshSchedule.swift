import Foundation

/// When the host next asks the origin by itself: the one refresh scheduled, when it is due,
/// and whether the app is in the foreground (refreshes run only there; one due in the
/// background waits for the resume).
///
/// Owned by the host's ``OriginLink``; the host starts the refresh task (it calls back into
/// the host), the schedule keeps it, and cancels it when it goes.
final class RefreshSchedule {
    /// The refresh scheduled or running, if any.
    var task: Task<Void, Never>?
    /// When the scheduled refresh is due (also while in the background, for the resume).
    var due: Date?
    /// Whether the app is in the foreground.
    var foreground = true
    /// When the app last came back to the foreground (nil: it has not, since the host
    /// started); a presentation waits out ``ForegroundGrace`` from then.
    var returnedToForeground: Date?

    deinit { task?.cancel() }

    /// Cancels the refresh scheduled, if any, and forgets when it was due.
    func cancel() {
        task?.cancel()
        task = nil
        due = nil
    }
}
