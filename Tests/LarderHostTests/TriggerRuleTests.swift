import Foundation
import LarderFormat
import Testing
@testable import LarderHost

/// The trigger router's rules as tables [seed 001: "an experience appears when the user fires a
/// specific event via trigger()", "reentry policies control how often a experience appears",
/// "Only one experience can be presented at a time", "a short grace period ... before
/// experiences can appear"]: ``ReentryRule``, ``TriggerGate`` and ``TriggerDocumentRule``.
@Suite("Trigger rules")
struct TriggerRuleTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Reentry: always every time, once the first time only, every <duration> once the interval passed", arguments: [
        (TriggerDocument.Reentry.always, nil, true), (.always, 0.0, true),
        (.once, nil, true), (.once, 0.0, false), (.once, -86_400.0 * 365, false),
        (.every(seconds: 3600), nil, true), (.every(seconds: 3600), -3599.0, false), (.every(seconds: 3600), -3600.0, true),
    ] as [(TriggerDocument.Reentry, Double?, Bool)])
    func reentry(_ reentry: TriggerDocument.Reentry, _ lastShownOffset: Double?, _ allowed: Bool) {
        #expect(ReentryRule.allows(reentry, lastShown: lastShownOffset.map { Self.now.addingTimeInterval($0) }, now: Self.now) == allowed)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var matched = true
        var reentry = TriggerDocument.Reentry.always
        var lastShown: Double?
        var presentationOpen = false
        var triggerInFlight = false
        var graceEnds: Double?
        var expected: TriggerGate.Action
        var testDescription: String { name }
    }

    static func trigger(_ reentry: TriggerDocument.Reentry) -> TriggerDocument.Trigger {
        TriggerDocument.Trigger(event: "checkout_started", journey: "paywall", reentry: reentry)
    }

    static func suppressed(_ reason: TriggerSuppression) -> TriggerGate.Action { .answer(.suppressed(journey: "paywall", reason: reason)) }

    static let rows: [Row] = [
        Row(name: "no trigger for the event: no match", matched: false, expected: .answer(.noMatch)),
        Row(name: "a match, nothing in the way: present", expected: .present(journey: "paywall")),
        Row(name: "once, shown before: reentry", reentry: .once, lastShown: -10, expected: suppressed(.reentry)),
        Row(name: "once, never shown: present", reentry: .once, expected: .present(journey: "paywall")),
        Row(name: "another presentation open: suppressed", presentationOpen: true, expected: suppressed(.presentationOpen)),
        Row(name: "a trigger's presentation still coming up: suppressed", triggerInFlight: true, expected: suppressed(.presentationOpen)),
        Row(name: "in the foreground grace: suppressed", graceEnds: 0.4, expected: suppressed(.foregroundGrace)),
        Row(name: "the grace just ended: present", graceEnds: 0, expected: .present(journey: "paywall")),
        Row(name: "reentry says so before the screen does", reentry: .once, lastShown: -10, presentationOpen: true, expected: suppressed(.reentry)),
    ]

    @Test("What an event does", arguments: rows)
    func gate(_ row: Row) {
        var gate = TriggerGate()
        if row.triggerInFlight { _ = gate.triggered(Self.trigger(.always), lastShown: nil, now: Self.now, presentationOpen: false, graceEnds: nil) }
        let action = gate.triggered(
            row.matched ? Self.trigger(row.reentry) : nil, lastShown: row.lastShown.map { Self.now.addingTimeInterval($0) }, now: Self.now,
            presentationOpen: row.presentationOpen, graceEnds: row.graceEnds.map { Self.now.addingTimeInterval($0) })
        #expect(action == row.expected)
        #expect((gate.presenting != nil) == (row.expected == .present(journey: "paywall") || row.triggerInFlight))
    }

    @Test("A presentation that came up is recorded for the person; one that failed says why; either way the gate opens")
    func afterThePresentation() {
        var gate = TriggerGate()
        let session = PresentationSession(id: "s1", journey: "paywall", revision: 3, bundle: Digest(bytes: [UInt8](repeating: 1, count: 32)))
        #expect(gate.triggered(Self.trigger(.once), lastShown: nil, now: Self.now, presentationOpen: false, graceEnds: nil) == .present(journey: "paywall"))
        #expect(gate.presented(session, now: Self.now) == .record(journey: "paywall", at: Self.now, then: .shown(journey: "paywall", session: session)))
        #expect(gate.presenting == nil)
        _ = gate.triggered(Self.trigger(.always), lastShown: nil, now: Self.now, presentationOpen: false, graceEnds: nil)
        #expect(gate.failed(denied: true) == .answer(.suppressed(journey: "paywall", reason: .denied)))
        _ = gate.triggered(Self.trigger(.always), lastShown: nil, now: Self.now, presentationOpen: false, graceEnds: nil)
        #expect(gate.failed(denied: false) == .answer(.suppressed(journey: "paywall", reason: .noContent)))
        #expect(gate.presenting == nil)
    }

    @Test("When the triggers document is asked for", arguments: [
        ("never answered: ask first", nil, nil, TriggerDocumentRule.Opening.ask),
        ("never answered, backing off: decide with nothing", nil, 30.0, .serve(revalidate: false)),
        ("answered a minute ago: decide with it", -60.0, nil, .serve(revalidate: false)),
        ("answered 10 minutes ago: decide with it, revalidate behind", -600.0, nil, .serve(revalidate: true)),
        ("stale but backing off: decide with it", -3600.0, 30.0, .serve(revalidate: false)),
    ] as [(String, Double?, Double?, TriggerDocumentRule.Opening)])
    func documentOpening(_ name: String, _ renewed: Double?, _ notBefore: Double?, _ expected: TriggerDocumentRule.Opening) {
        var record = TriggerRecord()
        record.renewed = renewed.map { Self.now.addingTimeInterval($0) }
        record.notBefore = notBefore.map { Self.now.addingTimeInterval($0) }
        #expect(TriggerDocumentRule.opening(record, now: Self.now, refreshInterval: .seconds(600)) == expected, "\(name)")
    }
}
