import Foundation
@testable import LarderHost
import Testing

/// The bridge's bounds as a pure state machine (``BridgeAdmission``), on a clock the test
/// moves, and the timeline's separate bounds per kind (``Timeline``).
@Suite struct BridgeAdmissionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let limits = BridgeLimits(maximumMessageBytes: 100, burst: 3, perSecond: 2)

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Each message: its size and when it arrives (seconds after ``start``).
        var messages: [(bytes: Int, at: Double)]
        var expected: [BridgeAdmission.Verdict]
        var testDescription: String { name }
    }

    @Test(arguments: [
        Case(name: "a burst, then refused", messages: [(10, 0), (10, 0), (10, 0), (10, 0)], expected: [.admit, .admit, .admit, .overRate]),
        Case(
            name: "tokens accrue at the rate", messages: [(10, 0), (10, 0), (10, 0), (10, 0.25), (10, 0.5), (10, 0.6)],
            expected: [.admit, .admit, .admit, .overRate, .admit, .overRate]),
        Case(
            name: "a long pause gives back the burst, no more", messages: [(10, 0), (10, 0), (10, 0), (10, 100), (10, 100), (10, 100), (10, 100)],
            expected: [.admit, .admit, .admit, .admit, .admit, .admit, .overRate]),
        Case(
            name: "too large is refused without taking a token", messages: [(101, 0), (100, 0), (5000, 0), (1, 0), (1, 0), (1, 0)],
            expected: [.tooLarge, .admit, .tooLarge, .admit, .admit, .overRate]),
        Case(
            name: "the clock going back adds nothing", messages: [(10, 10), (10, 10), (10, 10), (10, 5), (10, 10.25), (10, 10.5)],
            expected: [.admit, .admit, .admit, .overRate, .overRate, .admit]),
    ])
    func admits(_ test: Case) {
        var admission = BridgeAdmission(limits: Self.limits)
        let verdicts = test.messages.map { admission.admit(bytes: $0.bytes, now: Self.start.addingTimeInterval($0.at)) }
        #expect(verdicts == test.expected)
        let counts = admission.total
        #expect(counts.accepted == test.expected.filter { $0 == .admit }.count)
        #expect(counts.overRate == test.expected.filter { $0 == .overRate }.count)
        #expect(counts.tooLarge == test.expected.filter { $0 == .tooLarge }.count)
        #expect(counts.posted == test.messages.count)
    }

    @Test func eachPeriodStartsWithAFullBurstAndItsOwnCounts() {
        var admission = BridgeAdmission(limits: Self.limits)
        for _ in 0..<10 { _ = admission.admit(bytes: 1, now: Self.start) }
        admission.countMalformed()
        let hidden = admission.beginPeriod()
        #expect(hidden == BridgeCounts(accepted: 2, tooLarge: 0, overRate: 7, malformed: 1))
        let verdicts = (0..<4).map { _ in admission.admit(bytes: 1, now: Self.start) }
        #expect(verdicts == [.admit, .admit, .admit, .overRate])
        #expect(admission.beginPeriod() == BridgeCounts(accepted: 3, overRate: 1))
        #expect(admission.total == BridgeCounts(accepted: 5, overRate: 8, malformed: 1))
        #expect(BridgeCounts(accepted: 5, tooLarge: 2, overRate: 8, malformed: 1).refusalSummary(Self.limits)
            == "11 of 16 bridge messages refused: 8 past the rate limit (3 at once, then 2 a second), 2 over 100 bytes, 1 malformed")
    }
}

@Suite struct TimelineBoundsTests {
    static func entry(_ kind: TimelineEntry.Kind, _ detail: String) -> TimelineEntry {
        TimelineEntry(time: Date(timeIntervalSince1970: 0), kind: kind, detail: detail)
    }

    @Test func contentEntriesNeverPushTheHostsOut() {
        var timeline = Timeline()
        timeline.append(Self.entry(.fetched, "first"), from: .host)
        for index in 0..<10_000 { timeline.append(Self.entry(.captureDropped, "\(index)"), from: .content) }
        timeline.append(Self.entry(.presented, "second"), from: .host)
        for index in 10_000..<10_050 { timeline.append(Self.entry(.captured, "\(index)"), from: .content) }
        timeline.append(Self.entry(.dismissed, "third"), from: .host)
        let entries = timeline.entries
        #expect(entries.filter { [.fetched, .presented, .dismissed].contains($0.kind) }.map(\.detail) == ["first", "second", "third"])
        let content = entries.filter { [.captured, .captureDropped].contains($0.kind) }.map(\.detail)
        #expect(content == (9_950..<10_050).map { "\($0)" })
        // In order: the host's second entry sits between the content's before and after it.
        #expect(entries.map(\.detail).prefix(2) == ["first", "9950"])
        #expect(entries[51].detail == "second" && entries.last?.detail == "third")
    }

    @Test func eachPartKeepsItsNewestUpToItsBound() {
        var timeline = Timeline()
        for index in 0..<1_234 { timeline.append(Self.entry(.fetched, "\(index)"), from: .host) }
        #expect(timeline.entries.map(\.detail) == (734..<1_234).map { "\($0)" })
        #expect(Timeline.hostCapacity == 500 && Timeline.contentCapacity == 100)
    }
}
