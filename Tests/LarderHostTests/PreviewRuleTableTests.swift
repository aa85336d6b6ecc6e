@testable import LarderHost
import Testing

/// ``PreviewRule`` over its arguments [seed 001].
@Suite("Preview rule table")
struct PreviewRuleTableTests {
    @Test("Dismissing a preview restores the prepared state", arguments: [
        (Bool?.some(true), Bool?.some(true), PreviewRule.showStaged(preload: true)),
        (true, nil, .showStaged(preload: true)),
        (false, true, .showStaged(preload: false)),
        (nil, true, .loadPreparedHidden),
        (nil, false, .leaveUnloaded),
        (nil, nil, .leaveUnloaded),
    ] as [(Bool?, Bool?, PreviewRule)])
    func afterDismissal(_ staged: Bool?, _ prepared: Bool?, _ expected: PreviewRule) {
        #expect(PreviewRule.afterDismissal(stagedPreloaded: staged, preparedPreloaded: prepared) == expected)
    }

    @Test("A bundle the origin does not have, or could not give", arguments: [
        (Int?.some(404), HostError.Code.bundleNotFound), (410, .bundleNotFound), (500, .unavailable), (403, .unavailable), (nil, .unavailable),
    ] as [(Int?, HostError.Code)])
    func missing(_ status: Int?, _ code: HostError.Code) {
        #expect(PreviewRule.missingCode(originStatus: status) == code)
    }
}
