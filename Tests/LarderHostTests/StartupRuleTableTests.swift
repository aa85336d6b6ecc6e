import Foundation
import Testing
@testable import LarderHost

/// ``StartupRule`` as a table: before the origin authorised the scope in this launch the
/// startup policy decides; after it the freshness window does. Ages come from a manual clock.
@Suite("Startup rule")
struct StartupRuleTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var policy: StartupPolicy
        var authorised: Bool
        /// Seconds since the origin last authorised the content.
        var age: Int
        var freshness: FreshnessPolicy.Decision
        var servesStale: Bool
        var testDescription: String { "\(policy.rawValue), \(authorised ? "authorised" : "not yet authorised"), \(age) s old" }
    }

    @Test("What a new presentation may show, by policy, launch authorisation and age", arguments: [
        Row(policy: .askOriginFirst, authorised: false, age: 60, freshness: .requiresFetch, servesStale: true),
        Row(policy: .askOriginFirst, authorised: false, age: 3 * 3600, freshness: .requiresFetch, servesStale: true),
        Row(policy: .askOriginFirst, authorised: true, age: 60, freshness: .fresh, servesStale: true),
        Row(policy: .askOriginFirst, authorised: true, age: 20 * 60, freshness: .presentAndRefresh, servesStale: true),
        Row(policy: .askOriginFirst, authorised: true, age: 31 * 60, freshness: .requiresFetch, servesStale: true),
        Row(policy: .cacheFirst, authorised: false, age: 60, freshness: .presentAndRefresh, servesStale: true),
        Row(policy: .cacheFirst, authorised: false, age: 3 * 3600, freshness: .presentAndRefresh, servesStale: true),
        Row(policy: .cacheFirst, authorised: true, age: 60, freshness: .fresh, servesStale: true),
        Row(policy: .cacheFirst, authorised: true, age: 31 * 60, freshness: .requiresFetch, servesStale: true),
        Row(policy: .requireAuthorisation, authorised: false, age: 60, freshness: .requiresFetch, servesStale: false),
        Row(policy: .requireAuthorisation, authorised: false, age: 3 * 3600, freshness: .requiresFetch, servesStale: false),
        Row(policy: .requireAuthorisation, authorised: true, age: 60, freshness: .fresh, servesStale: true),
        Row(policy: .requireAuthorisation, authorised: true, age: 31 * 60, freshness: .requiresFetch, servesStale: true),
    ])
    func decide(_ row: Row) {
        let clock = ManualClock()
        let renewed = clock.now
        clock.advance(by: .seconds(row.age))
        let window = FreshnessPolicy(serverRefreshInterval: .seconds(600))
        #expect(StartupRule.freshness(policy: row.policy, authorisedThisLaunch: row.authorised, window: window, age: clock.now.duration(since: renewed)) == row.freshness)
        #expect(StartupRule.servesStale(policy: row.policy, authorisedThisLaunch: row.authorised) == row.servesStale)
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
