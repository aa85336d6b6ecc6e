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

    /// The last stopped the process inside `DateFormatter` (found by `larder-fuzz retry-after`).
    @Test(arguments: ["", "-5", "1.5", "soon", "Wed, 21 Oct 2015", "Su\u{07F1}\u{FFFD}6 GMTT"])
    func rejectsOtherValues(_ value: String) {
        #expect(RetryAfter.delay(value, now: Self.now) == nil)
    }
}
