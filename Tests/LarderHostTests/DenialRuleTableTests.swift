import Testing
@testable import LarderHost

/// ``DenialRule`` as tables: 401/403, a confirmed 404 under either removed-journey policy, and
/// which scope a discard ends (DESIGN.md Host; seeds 000 and 002).
@Suite("Denial rule table")
struct DenialRuleTableTests {
    @Test("A 401 or 403 discards at once", arguments: [401, 403])
    func denied(_ status: Int) {
        #expect(DenialRule.denied(status: status) == .discard(status: status))
    }

    @Test("A 404: confirmed by the second in a row; then discarded, or kept in service under keep", arguments: [
        (1, RemovedJourneyPolicy.discard, 7 as Int64?, false, DenialRule.Action.awaitConfirmation),
        (1, .keepServing, 7, false, .awaitConfirmation),
        (2, .discard, 7, false, .discard(status: 404)),
        (3, .discard, nil, false, .discard(status: 404)),
        (2, .keepServing, 7, false, .keepServing(revision: 7, firstTime: true)),
        (3, .keepServing, 7, true, .keepServing(revision: 7, firstTime: false)),
        // Nothing stored to keep: discarded as under discard.
        (2, .keepServing, nil, false, .discard(status: 404)),
    ] as [(Int, RemovedJourneyPolicy, Int64?, Bool, DenialRule.Action)])
    func notFound(_ consecutive: Int, _ policy: RemovedJourneyPolicy, _ revision: Int64?, _ alreadyKept: Bool, _ expected: DenialRule.Action) {
        #expect(DenialRule.notFound(consecutive: consecutive, policy: policy, storedRevision: revision, alreadyKept: alreadyKept) == expected)
    }

    @Test("A discard ends the presentation only of the current scope", arguments: [
        ("key|onboarding|ada", "key|onboarding|ada", true),
        ("key|onboarding|ada", "key|onboarding|bob", false),
    ])
    func endsPresentation(_ discarded: String, _ current: String, _ expected: Bool) {
        #expect(DenialRule.endsPresentation(discardedScope: discarded, currentScope: current) == expected)
    }
}
