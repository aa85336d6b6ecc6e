import Foundation
import LarderFormat
import Testing
@testable import LarderHost

/// ``FreshnessRenewal`` as tables: what a 304 renews, and what a refresh does with the content
/// prepared and shown (DESIGN.md Host; seeds 000 and 002).
@Suite("Freshness renewal")
struct FreshnessRenewalTests {
    static let document = JourneyDocument(
        journey: "onboarding", revision: 5, bundle: SHA256Hasher.hash(Array("bundle".utf8)), refresh: 600,
        published: "2027-01-15T08:00:00Z")

    /// A stored record in each state a 304 can meet.
    static let records: [(String, ScopeRecord)] = {
        let clock = ManualClock()
        let earlier = clock.now
        var fresh = ScopeRecord(document: document, etag: "\"5\"", renewed: earlier)
        fresh.fitting = document
        var failing = fresh
        failing.failures = 3
        failing.notBefore = earlier.addingTimeInterval(120)
        var unconfirmed = fresh
        unconfirmed.notFound = 1
        unconfirmed.failures = 1
        var kept = fresh
        kept.notFound = 2
        kept.deniedStatus = 404
        kept.deniedAt = earlier
        kept.keptAfterRemoval = true
        return [("renewed before", fresh), ("after failures, backing off", failing), ("after one 404", unconfirmed),
                ("kept after a confirmed 404", kept)]
    }()

    @Test("A 304 renews the stored record now and forgets failures, backoff, 404s and the removal", arguments: records)
    func revalidated(_ name: String, _ record: ScopeRecord) {
        let clock = ManualClock()
        clock.advance(by: .seconds(25 * 60))
        let renewed = FreshnessRenewal.revalidated(record, now: clock.now)
        #expect(renewed.renewed == clock.now)
        #expect(renewed.failures == 0 && renewed.notBefore == nil && renewed.notFound == 0)
        #expect(renewed.deniedStatus == nil && renewed.deniedAt == nil && !renewed.keptAfterRemoval && !renewed.isRemovedButKept)
        // The document, its validator and the revision kept for the renderer gate stay.
        #expect(renewed.document == record.document && renewed.etag == record.etag && renewed.fitting == record.fitting)
    }

    @Test("After the origin authorised content: renew in place, adopt, or only the stored state", arguments: [
        (true, true, FreshnessRenewal.Action.renewInPlace),
        (true, false, .adopt),
        (false, false, .none),
        (false, true, .none),
    ])
    func afterAuthorisation(_ somethingPrepared: Bool, _ sameContent: Bool, _ expected: FreshnessRenewal.Action) {
        #expect(FreshnessRenewal.afterAuthorisation(somethingPrepared: somethingPrepared, sameContent: sameContent) == expected)
    }
}
