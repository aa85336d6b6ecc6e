import Foundation
import Testing
@testable import LarderHost

@Suite struct FreshnessPolicyTests {
    @Test(arguments: [
        (nil, 600), (60, 600), (600, 600), (900, 900), (1800, 1800), (7200, 1800),
    ] as [(Int64?, Int64)])
    func clampsTheServerIntervalToTenToThirtyMinutes(_ server: Int64?, _ expected: Int64) {
        #expect(FreshnessPolicy(serverRefreshInterval: server.map { .seconds($0) }).refreshInterval == .seconds(expected))
    }

    @Test(arguments: [
        (900, 0, FreshnessPolicy.Decision.fresh),
        (900, 899, .fresh),
        (900, 900, .presentAndRefresh),
        (900, 1800, .presentAndRefresh),
        (900, 1801, .requiresFetch),
        (60, 599, .fresh),
        (60, 601, .presentAndRefresh),
        (7200, 1799, .fresh),
        (7200, 1801, .requiresFetch),
    ] as [(Int64, Int64, FreshnessPolicy.Decision)])
    func decidesByAge(_ server: Int64, _ age: Int64, _ expected: FreshnessPolicy.Decision) {
        #expect(FreshnessPolicy(serverRefreshInterval: .seconds(server)).decision(age: .seconds(age)) == expected)
    }
}

@Suite struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT

    @Test(arguments: [
        ("120", Duration.seconds(120)),
        ("0", .zero),
        ("Wed, 21 Oct 2015 07:30:00 GMT", .seconds(120)),
        ("Wednesday, 21-Oct-15 07:29:00 GMT", .seconds(60)),
        ("Wed Oct 21 07:28:30 2015", .seconds(30)),
        ("Wed, 21 Oct 2015 07:00:00 GMT", .zero),
    ])
    func parsesBothForms(_ value: String, _ expected: Duration) {
        #expect(RetryAfter.delay(value, now: Self.now) == expected)
    }

    /// The last stopped the process inside `DateFormatter`, which parsed dates before
    /// ``HTTPDate`` (found by `larder-fuzz retry-after`).
    @Test(arguments: ["", "-5", "1.5", "soon", "Wed, 21 Oct 2015", "Su\u{07F1}\u{FFFD}6 GMTT"])
    func rejectsOtherValues(_ value: String) {
        #expect(RetryAfter.delay(value, now: Self.now) == nil)
    }

    /// Each form and the edges of its grammar, as seconds since 1970 (nil: refused).
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
        ("Sun Nov  6 08:49:37 1994", 784_111_777),
        ("Sun Nov 6 08:49:37 1994", 784_111_777),  // one space, as some servers write it
        ("Sun, 6 Nov 1994 08:49:37 GMT", 784_111_777),
        ("Mon, 29 Feb 2016 00:00:00 GMT", 1_456_704_000),
        ("Sat, 31 Dec 2016 23:59:60 GMT", 1_483_228_800),  // a leap second: the next second
        ("Mon, 01 Jan 0001 00:00:00 GMT", -62_135_596_800),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ("Thursday, 01-Jan-65 00:00:00 GMT", 2_997_993_600),  // 50 years after 2015: still ahead
        ("Saturday, 01-Jan-66 00:00:00 GMT", -126_230_400),  // 51 years ahead: the past century
        ("Sun, 29 Feb 2015 00:00:00 GMT", nil),
        ("Thu, 31 Apr 2015 00:00:00 GMT", nil),
        ("Wed, 21 Oct 2015 24:00:00 GMT", nil),
        ("Wed, 21 Oct 2015 07:60:00 GMT", nil),
        ("Wed, 00 Oct 2015 07:28:00 GMT", nil),
        ("Wed, 21 Oct 2015 07:28:00 gmt", nil),
        ("Wed, 21 Oct 2015 07:28:00 UTC", nil),
        ("wed, 21 oct 2015 07:28:00 GMT", nil),
        ("Wed, 21 Oct 02015 07:28:00 GMT", nil),
        ("Wed, 21 Oct 15 07:28:00 GMT", nil),
        ("Wed, 21 Oct 2015 7:28:00 GMT", nil),
        ("Wed, 21 Oct 2015 07:28:00 GMT ", nil),
        ("Wed, 21 Oct 2015 07:28:00 GMT\u{0}", nil),
        ("Wed, 121 Oct 2015 07:28:00 GMT", nil),
        ("Wednesday, 21-Oct-2015 07:28:00 GMT", nil),
        ("Wed Oct 21 07:28:00 2015 GMT", nil),
        ("Wed Oct   21 07:28:00 2015", nil),
    ] as [(String, Int?)])
    func readsTheGrammarOfEachForm(_ text: String, _ seconds: Int?) {
        #expect(RetryAfter.httpDate(text, now: Self.now) == seconds.map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }
}
