import Testing
@testable import LarderHost

/// ``StagingRule`` and ``DismissalRule`` as tables: a revision published while open is staged
/// and shown after dismissal (DESIGN.md Host; seed 000).
@Suite("Staging and dismissal rule tables")
struct StagingRuleTableTests {
    @Test("A new revision is staged while a presentation is open, prepared now otherwise", arguments: [
        (true, StagingRule.Placement.stage),
        (false, .prepareNow),
    ])
    func placement(_ open: Bool, _ expected: StagingRule.Placement) {
        #expect(StagingRule.placement(presentationOpen: open) == expected)
    }

    @Test("Dismissal: the staged revision replaces the prepared one; otherwise reset, unload or prepare afresh", arguments: [
        (true as Bool?, true, true, DismissalRule.showStaged(preload: true)),
        (false, true, true, .showStaged(preload: false)),
        (true, false, false, .showStaged(preload: true)),
        (nil, false, true, .prepareAfresh),
        (nil, false, false, .prepareAfresh),
        (nil, true, true, .reset),
        (nil, true, false, .unload),
    ] as [(Bool?, Bool, Bool, DismissalRule)])
    func dismissal(_ stagedPreloaded: Bool?, _ hasPrepared: Bool, _ shownPreloaded: Bool, _ expected: DismissalRule) {
        #expect(DismissalRule.decide(stagedPreloaded: stagedPreloaded, hasPrepared: hasPrepared, shownPreloaded: shownPreloaded) == expected)
    }
}
