import Foundation
import Testing
@testable import LarderHost

/// ``StartupRule`` as a table: before the origin authorised the scope in this launch the
/// startup policy decides; after it the freshness window does, but cache first shows the cache
/// at every age the stale-content policy allows [seed 002]; the strict stale-content policy
/// (seed 000) stops stale content past 30 minutes. Ages come from a manual clock.
@Suite("Startup rule")
struct StartupRuleTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var policy: StartupPolicy
        var authorised: Bool
        /// Seconds since the origin last authorised the content.
        var age: Int
        var freshness: FreshnessPolicy.Decision
        var servesStale: Bool
        var staleContent: StaleContentPolicy = .lastGoodVersion
        var testDescription: String {
            "\(policy.rawValue), \(authorised ? "authorised" : "not yet authorised"), \(age) s old" + (staleContent == .strict ? ", strict" : "")
        }
    }

    static let rows: [Row] = [
        Row(policy: .askOriginFirst, authorised: false, age: 60, freshness: .requiresFetch, servesStale: true),
        Row(policy: .askOriginFirst, authorised: false, age: 3 * 3600, freshness: .requiresFetch, servesStale: true),
        Row(policy: .askOriginFirst, authorised: true, age: 60, freshness: .fresh, servesStale: true),
        Row(policy: .askOriginFirst, authorised: true, age: 20 * 60, freshness: .presentAndRefresh, servesStale: true),
        Row(policy: .askOriginFirst, authorised: true, age: 31 * 60, freshness: .requiresFetch, servesStale: true),
        Row(policy: .cacheFirst, authorised: false, age: 60, freshness: .presentAndRefresh, servesStale: true),
        Row(policy: .cacheFirst, authorised: false, age: 3 * 3600, freshness: .presentAndRefresh, servesStale: true),
        Row(policy: .cacheFirst, authorised: true, age: 60, freshness: .fresh, servesStale: true),
        Row(policy: .cacheFirst, authorised: true, age: 31 * 60, freshness: .presentAndRefresh, servesStale: true),
        Row(policy: .cacheFirst, authorised: true, age: 3 * 86_400, freshness: .presentAndRefresh, servesStale: true),
        Row(policy: .cacheFirst, authorised: true, age: 31 * 60, freshness: .requiresFetch, servesStale: false, staleContent: .strict),
        Row(policy: .cacheFirst, authorised: false, age: 29 * 60, freshness: .presentAndRefresh, servesStale: true, staleContent: .strict),
        Row(policy: .cacheFirst, authorised: false, age: 31 * 60, freshness: .requiresFetch, servesStale: false, staleContent: .strict),
        Row(policy: .askOriginFirst, authorised: true, age: 29 * 60, freshness: .presentAndRefresh, servesStale: true, staleContent: .strict),
        Row(policy: .askOriginFirst, authorised: true, age: 31 * 60, freshness: .requiresFetch, servesStale: false, staleContent: .strict),
        Row(policy: .requireAuthorisation, authorised: true, age: 31 * 60, freshness: .requiresFetch, servesStale: false, staleContent: .strict),
        Row(policy: .requireAuthorisation, authorised: false, age: 60, freshness: .requiresFetch, servesStale: false),
        Row(policy: .requireAuthorisation, authorised: false, age: 3 * 3600, freshness: .requiresFetch, servesStale: false),
        Row(policy: .requireAuthorisation, authorised: true, age: 60, freshness: .fresh, servesStale: true),
        Row(policy: .requireAuthorisation, authorised: true, age: 31 * 60, freshness: .requiresFetch, servesStale: true),
    ]

    @Test("What a new presentation may show, by policy, launch authorisation and age", arguments: rows)
    func decide(_ row: Row) {
        let clock = ManualClock()
        let renewed = clock.now
        clock.advance(by: .seconds(row.age))
        let window = FreshnessPolicy(serverRefreshInterval: .seconds(600))
        let age = clock.now.duration(since: renewed)
        #expect(
            StartupRule.freshness(policy: row.policy, authorisedThisLaunch: row.authorised, window: window, age: age, staleContent: row.staleContent)
                == row.freshness)
        #expect(StartupRule.servesStale(policy: row.policy, authorisedThisLaunch: row.authorised, staleContent: row.staleContent, age: age) == row.servesStale)
    }

    @Test("The stale link needs both a complete cached bundle and the policy's leave", arguments: [
        (true, true, FallbackChain.Rest.serveStale), (true, false, .embeddedOrFail), (false, true, .embeddedOrFail), (false, false, .embeddedOrFail),
    ])
    func rest(_ complete: Bool, _ allowed: Bool, _ expected: FallbackChain.Rest) {
        #expect(FallbackChain.rest(staleComplete: complete, staleAllowed: allowed) == expected)
    }

    @Test("Policies have the CLI's names, and asking first is the default")
    func names() {
        #expect(StartupPolicy.allCases.map(\.rawValue) == ["ask-origin-first", "cache-first", "require-authorisation"])
        let configuration = JourneyConfiguration(publishableKey: "k", journeyID: "j", origin: URL(string: "http://origin.test/")!)
        #expect(configuration.startup == .askOriginFirst)
    }
}
