import Foundation
import LarderTestSupport
import LarderFormat
import LarderHost
import Testing

/// DESIGN.md Host, freshness: the server's refresh interval clamped to 10–30 min; younger
/// content opens at once, content in the window's second half opens at once and refreshes in
/// the background, older content needs a fetch first; an open presentation is never ended for
/// age; one refresh is scheduled when due while in the foreground.
@Suite("Freshness rules")
struct FreshnessRuleTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var refresh: Int64
        var ageMinutes: Int64
        /// Journey requests made by the second `prepare()` before it returns.
        var requestsBeforeReturn: Int
        /// Journey requests once background work settled.
        var requestsAfterwards: Int
        var testDescription: String { "refresh \(refresh) s, age \(ageMinutes) min" }
    }

    @Test(
        "A fresh preparation returns at once; the second half of the window refreshes in the background; after 30 min a fetch comes first",
        arguments: [
            Case(refresh: 600, ageMinutes: 5, requestsBeforeReturn: 0, requestsAfterwards: 0),
            Case(refresh: 600, ageMinutes: 12, requestsBeforeReturn: 0, requestsAfterwards: 1),
            Case(refresh: 600, ageMinutes: 31, requestsBeforeReturn: 1, requestsAfterwards: 1),
            // Clamped up to 10 min: 9 minutes is still fresh although the server asked for 60 s.
            Case(refresh: 60, ageMinutes: 9, requestsBeforeReturn: 0, requestsAfterwards: 0),
            // Clamped down to 30 min: 29 minutes is fresh although the server asked for 1 h.
            Case(refresh: 3600, ageMinutes: 29, requestsBeforeReturn: 0, requestsAfterwards: 0),
            Case(refresh: 3600, ageMinutes: 31, requestsBeforeReturn: 1, requestsAfterwards: 1),
        ])
    func preparationAge(_ rule: Case) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", refresh: rule.refresh)
        let host = try fixture.host()
        await host.setForeground(false)  // no scheduled refresh: only the rule under test asks
        try await host.prepare()
        #expect(fixture.origin.journeyRequestCount == 1)

        fixture.clock.advance(by: .seconds(rule.ageMinutes * 60))
        let journey = try await host.prepare()
        #expect(fixture.origin.journeyRequestCount == 1 + rule.requestsBeforeReturn)
        #expect(journey.revision == 1)
        if rule.requestsAfterwards > rule.requestsBeforeReturn {
            #expect(await eventually { fixture.origin.journeyRequestCount == 1 + rule.requestsAfterwards })
        } else {
            for _ in 0..<100 { await Task.yield() }  // a wrongly started background refresh would land here
            #expect(fixture.origin.journeyRequestCount == 1 + rule.requestsAfterwards)
        }
    }

    @Test("Status reports the refresh interval the host uses: the document's, clamped to 10–30 min", arguments: [
        (60, 600), (900, 900), (3600, 1800),
    ] as [(Int64, Int64)])
    func statusReportsTheClampedInterval(_ asked: Int64, _ used: Int64) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", refresh: asked)
        let host = try fixture.host()
        try await host.prepare()
        let status = try await host.status()
        #expect(status.refresh == used && status.requestedRefresh == asked)
        await host.dispose()
    }

    @Test("An open presentation is never ended for age")
    func presentationOutlivesFreshness() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let host = try fixture.host()
        let session = try await host.present()
        fixture.origin.behaviour = .offline
        fixture.clock.advance(by: .seconds(45 * 60))
        await host.refresh()
        #expect(await host.presentationState == .presented(session))
        #expect(try await host.present() == session)
    }

    @Test("One refresh is scheduled when due, only in the foreground; a resume refreshes when due")
    func scheduledRefresh() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding", refresh: 600)
        let host = try fixture.host()
        try await host.prepare()
        #expect(fixture.origin.journeyRequestCount == 1)
        // The timer (RefreshScheduleTests: one, the earliest) fires at 600 s even if it starts
        // sleeping after the clock moved.
        fixture.clock.advance(by: .seconds(600))
        #expect(await eventually { fixture.origin.journeyRequestCount == 2 })
        // The 304 renewed freshness and scheduled the next refresh, one only.
        #expect(await eventually { fixture.clock.sleeperCount == 1 })
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] != nil)

        await host.setForeground(false)
        fixture.clock.advance(by: .seconds(3600))
        for _ in 0..<100 { await Task.yield() }
        #expect(fixture.origin.journeyRequestCount == 2)

        // A resume past the due date refreshes before it returns (RefreshScheduleTests).
        await host.setForeground(true)
        #expect(fixture.origin.journeyRequestCount == 3)
    }
}
