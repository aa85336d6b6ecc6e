import Foundation
import LarderFormat
import LarderHost
@testable import LarderJourneyView
import Testing

/// The view's state machine, event by event: what it shows and asks of the host.
@Suite struct JourneyViewStageTests {
    /// Actions as short words, to compare.
    static func words(_ actions: [JourneyViewStage.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .present(let attempt): "present \(attempt)"
            case .cancelPresenting: "cancel"
            case .dismissHost: "dismiss"
            case .awaitEnd(let session): "await \(session)"
            case .show(let page): "show \(page.rawValue)"
            case .report(let error): "report \(error.code)"
            case .deliver(let result): "deliver \(result.outcome.rawValue)"
            case .endWithoutResult: "no result"
            case .closeOverlay: "close"
            }
        }
    }

    static func result(_ session: String, _ outcome: PresentationOutcome) -> PresentationResult {
        PresentationResult(
            session: PresentationSession(id: session, journey: "j", revision: 1, bundle: try! Digest(hex: String(repeating: "a", count: 64))),
            outcome: outcome, screen: JourneyScreen(id: "index.html"), ended: Date())
    }

    @Test func appearingPresentsAndShowsTheLoadingStateThenTheFlowOnceTheWebViewIsPlaced() {
        var stage = JourneyViewStage()
        #expect(Self.words(stage.mapped()) == ["show loading", "present 1"])
        #expect(stage.phase == .loading)
        // The host shows the content: the renderer places its web view before present returns.
        #expect(Self.words(stage.placed()) == ["show content"])
        #expect(Self.words(stage.presented(session: "s1", attempt: 1)) == ["await s1", "show content"])
        #expect(stage.phase == .showing(session: "s1"))
        // Mapped again while presenting: nothing new.
        #expect(Self.words(stage.mapped()).isEmpty)
    }

    @Test func leavingDismissesAndTheResultFollows() {
        var stage = JourneyViewStage()
        _ = stage.mapped()
        _ = stage.placed()
        _ = stage.presented(session: "s1", attempt: 1)
        #expect(Self.words(stage.unmapped()) == ["dismiss"])
        #expect(stage.phase == .idle)
        #expect(Self.words(stage.withdrawn()) == ["show empty"])
        #expect(Self.words(stage.ended(Self.result("s1", .endedByApp), failure: nil)) == ["deliver ended-by-app"])
        // Appearing again presents again, a new attempt.
        #expect(Self.words(stage.mapped()) == ["show loading", "present 2"])
    }

    @Test func leavingWhileLoadingCancelsAndALateSessionIsDismissed() {
        var stage = JourneyViewStage()
        _ = stage.mapped()
        #expect(Self.words(stage.unmapped()) == ["cancel", "dismiss", "no result"])
        #expect(Self.words(stage.presented(session: "s1", attempt: 1)) == ["dismiss"])
        #expect(Self.words(stage.presentFailed(HostError(.cancelled, "cancelled"), attempt: 1)).isEmpty)
        #expect(stage.phase == .idle)
    }

    /// The window closed (SIGTERM, its close button) in the instant between the host putting the
    /// flow on screen and its answer naming the session: the person saw the flow, so the
    /// presentation ends by dismissal and its result is delivered, not "nothing was shown".
    @Test func leavingWhileTheContentIsShownBeforeTheAnswerStillDeliversTheResult() {
        var stage = JourneyViewStage()
        _ = stage.mapped()
        _ = stage.placed()
        #expect(Self.words(stage.dismissed()) == ["dismiss", "show empty", "close"], "the presentation is let finish: no cancel")
        #expect(stage.resultPending)
        #expect(Self.words(stage.presented(session: "s1", attempt: 1)) == ["await s1"], "the dismissal is already queued after it")
        #expect(Self.words(stage.ended(Self.result("s1", .endedByApp), failure: nil)) == ["deliver ended-by-app"])
        #expect(!stage.resultPending)
        // Had the host failed instead, whoever waits gets nil.
        var failing = JourneyViewStage()
        _ = failing.mapped()
        _ = failing.placed()
        _ = failing.unmapped()
        #expect(Self.words(failing.presentFailed(HostError(.renderer, "gone"), attempt: 1)) == ["no result"])
        #expect(!failing.resultPending)
    }

    @Test func aFailureShowsTheErrorStateAndTryAgainPresentsAgain() {
        var stage = JourneyViewStage()
        _ = stage.mapped()
        #expect(Self.words(stage.presentFailed(HostError(.deadlineExceeded, "late"), attempt: 1)) == ["show error", "report deadline-exceeded"])
        #expect(stage.phase == .failed)
        #expect(stage.error?.code == .deadlineExceeded)
        #expect(Self.words(stage.retried()) == ["show loading", "present 2"])
        // The first attempt's late answer changes nothing.
        #expect(Self.words(stage.presentFailed(HostError(.unavailable, "old"), attempt: 1)).isEmpty)
        #expect(Self.words(stage.presented(session: "s2", attempt: 2)) == ["await s2", "show empty"])
        // Try again only from the error state.
        #expect(Self.words(stage.retried()).isEmpty)
    }

    @Test func aFlowThatEndsDeliversItsResultAndClosesAnOverlay() {
        var stage = JourneyViewStage()
        _ = stage.mapped()
        _ = stage.placed()
        _ = stage.presented(session: "s1", attempt: 1)
        #expect(Self.words(stage.ended(Self.result("other", .completed), failure: nil)).isEmpty)
        #expect(Self.words(stage.ended(Self.result("s1", .completed), failure: nil)) == ["deliver completed", "show empty", "close"])
        #expect(stage.phase == .ended)
        #expect(Self.words(stage.withdrawn()) == ["show empty"])
    }

    @Test func aFlowThatFailsOnShowGetsTheErrorStateNotABlankView() {
        var stage = JourneyViewStage()
        _ = stage.mapped()
        _ = stage.placed()
        _ = stage.presented(session: "s1", attempt: 1)
        let failure = HostError(.presentationFailed, "the web process crashed")
        // The dead web view is still placed: the error page is on show all the same.
        #expect(Self.words(stage.ended(Self.result("s1", .failed), failure: failure)) == ["deliver failed", "show error", "report presentation-failed"])
        #expect(stage.page == .error)
        // Trying again shows the loading state, not the dead web view, until the new one is placed.
        #expect(Self.words(stage.retried()) == ["show loading", "present 2"])
        #expect(Self.words(stage.withdrawn()) == ["show loading"])
        #expect(Self.words(stage.placed()) == ["show content"])
    }

    @Test func dismissingEndsTheFlowOrTheAttemptAndClosesAnOverlay() {
        var stage = JourneyViewStage()
        _ = stage.mapped()
        #expect(Self.words(stage.dismissed()) == ["cancel", "dismiss", "no result", "show empty", "close"])
        #expect(stage.phase == .ended)
        // The overlay's window unmapped: nothing more.
        #expect(Self.words(stage.unmapped()).isEmpty)

        var failed = JourneyViewStage()
        _ = failed.mapped()
        _ = failed.presentFailed(HostError(.unavailable, "down"), attempt: 1)
        #expect(Self.words(failed.dismissed()) == ["no result", "show empty", "close"])
    }
}
