import Foundation
import Testing
@testable import LarderHost

/// ``PresentationOutcomeRule`` and ``JourneyScreen``'s names as tables [seed 004].
@Suite("Presentation outcome rule")
struct PresentationOutcomeRuleTests {
    typealias Ending = PresentationOutcomeRule.Ending

    @Test("With no purchase or restore asked, the ending decides", arguments: [
        (Ending.contentCompleted, PresentationOutcome.completed), (.contentDismissed, .dismissed), (.app, .endedByApp),
        (.replaced, .replaced), (.failure, .failed),
    ])
    func ending(_ ending: Ending, _ expected: PresentationOutcome) {
        #expect(PresentationOutcomeRule.decide(ending: ending, purchaseRequested: false, restoreRequested: false) == expected)
    }

    @Test("A purchase asked outranks a restore, and both outrank every ending", arguments: [
        Ending.contentCompleted, .contentDismissed, .app, .replaced, .failure,
    ])
    func userActions(_ ending: Ending) {
        #expect(PresentationOutcomeRule.decide(ending: ending, purchaseRequested: true, restoreRequested: false) == .purchased)
        #expect(PresentationOutcomeRule.decide(ending: ending, purchaseRequested: true, restoreRequested: true) == .purchased)
        #expect(PresentationOutcomeRule.decide(ending: ending, purchaseRequested: false, restoreRequested: true) == .restored)
    }

    @Test("Outcome names on the wire", arguments: [
        (PresentationOutcome.completed, "completed"), (.dismissed, "dismissed"), (.purchased, "purchased"), (.restored, "restored"),
        (.replaced, "replaced"), (.failed, "failed"), (.endedByApp, "ended-by-app"),
    ])
    func names(_ outcome: PresentationOutcome, _ name: String) {
        #expect(outcome.rawValue == name)
    }

    @Test("A screen's name: the id's last path component without its extension", arguments: [
        ("index.html", "index"), ("screen-2.html", "screen-2"), ("onboarding/plans.html", "plans"), ("plans", "plans"),
        ("a.b.html", "a.b"), (".hidden", ".hidden"), ("folder/", "folder/"), ("welcome-step", "welcome-step"),
    ])
    func screenName(_ id: String, _ name: String) {
        let screen = JourneyScreen(id: id)
        #expect(screen.id == id)
        #expect(screen.name == name)
    }

    @Test("The coordinator: a claim displaces another holder, never the claimant; a release frees only its own claim")
    func coordinator() async {
        let coordinator = PresentationCoordinator()
        let (a, b) = (UUID(), UUID())
        #expect(coordinator.current(excluding: a) == nil)
        #expect(coordinator.claim(a) {} == nil)
        #expect(coordinator.current(excluding: a) == nil)
        #expect(coordinator.current(excluding: b)?.id == a)
        #expect(coordinator.claim(a) {} == nil)
        #expect(coordinator.claim(b) {}?.id == a)
        coordinator.release(a)
        #expect(coordinator.isHeld)
        #expect(coordinator.current(excluding: a)?.id == b)
        coordinator.release(b)
        #expect(!coordinator.isHeld)
    }
}
