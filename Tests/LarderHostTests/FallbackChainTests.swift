import Foundation
import Testing
@testable import LarderHost

/// ``FallbackChain`` as a table: fresh cache, live fetch within the deadline, stale cache,
/// embedded default (DESIGN.md Host; seed 004). Times come from a manual clock.
@Suite("Fallback chain")
struct FallbackChainTests {
    struct Opening: Sendable, CustomTestStringConvertible {
        var name: String
        var freshness: FreshnessPolicy.Decision?
        var complete = true
        var removedButKept = false
        /// Seconds from now when the backoff ends (negative: it ended); nil: none.
        var backoff: Int?
        var fetchRunning = false
        var forceRefresh = false
        var expected: Expected

        enum Expected: Sendable, Equatable {
            case serveFresh(refreshInBackground: Bool)
            case backingOff
            case askOrigin
        }

        var testDescription: String { name }
    }

    @Test("The first link: fresh content is shown from the cache, a backoff keeps the origin unasked", arguments: [
        Opening(name: "fresh", freshness: .fresh, expected: .serveFresh(refreshInBackground: false)),
        Opening(name: "second half of the window", freshness: .presentAndRefresh, expected: .serveFresh(refreshInBackground: true)),
        Opening(name: "too old", freshness: .requiresFetch, expected: .askOrigin),
        Opening(name: "no stored document", freshness: nil, expected: .askOrigin),
        Opening(name: "bundle incomplete", freshness: .fresh, complete: false, expected: .askOrigin),
        Opening(name: "kept after a confirmed 404", freshness: .fresh, removedButKept: true, expected: .askOrigin),
        Opening(name: "fresh during a backoff", freshness: .fresh, backoff: 60, expected: .serveFresh(refreshInBackground: false)),
        Opening(name: "too old during a backoff", freshness: .requiresFetch, backoff: 60, expected: .backingOff),
        Opening(name: "backoff ended", freshness: .requiresFetch, backoff: -1, expected: .askOrigin),
        Opening(name: "backoff ends now", freshness: nil, backoff: 0, expected: .askOrigin),
        Opening(name: "backoff, a fetch already on its way is shared", freshness: nil, backoff: 60, fetchRunning: true, expected: .askOrigin),
        Opening(name: "forced: fresh content is not served from the cache", freshness: .fresh, forceRefresh: true, expected: .askOrigin),
        Opening(name: "forced: nor content in the window's second half", freshness: .presentAndRefresh, forceRefresh: true, expected: .askOrigin),
        Opening(name: "forced: too old", freshness: .requiresFetch, forceRefresh: true, expected: .askOrigin),
        Opening(name: "forced: no stored document", freshness: nil, complete: false, forceRefresh: true, expected: .askOrigin),
        Opening(name: "forced: a backoff still holds, fresh or not", freshness: .fresh, backoff: 60, forceRefresh: true, expected: .backingOff),
        Opening(name: "forced: backoff ended", freshness: .fresh, backoff: -1, forceRefresh: true, expected: .askOrigin),
        Opening(name: "forced: a fetch on its way is shared", freshness: .fresh, backoff: 60, fetchRunning: true, forceRefresh: true, expected: .askOrigin),
    ])
    func opening(_ row: Opening) {
        let clock = ManualClock()
        let notBefore = row.backoff.map { clock.now.addingTimeInterval(TimeInterval($0)) }
        let decision = FallbackChain.opening(
            freshness: row.freshness, complete: row.complete, removedButKept: row.removedButKept, notBefore: notBefore,
            now: clock.now, fetchRunning: row.fetchRunning, forceRefresh: row.forceRefresh)
        switch (decision, row.expected) {
        case (.serveFresh(let refresh), .serveFresh(let expected)): #expect(refresh == expected)
        case (.backingOff(let until), .backingOff): #expect(until == notBefore)
        case (.askOrigin, .askOrigin): break
        default: Issue.record("\(row.name): \(decision), expected \(row.expected)")
        }
    }

    @Test("After a failed, late or unasked live fetch: the stale cache, else the embedded default", arguments: [
        (true, FallbackChain.Rest.serveStale),
        (false, .embeddedOrFail),
    ])
    func rest(_ staleComplete: Bool, _ expected: FallbackChain.Rest) {
        #expect(FallbackChain.rest(staleComplete: staleComplete) == expected)
    }

    @Test("Served from the rest of the chain: a forced refresh is told why, a plain one is not", arguments: [true, false])
    func fallbackReason(_ forced: Bool) {
        let reason = FallbackChain.fallbackReason(forced: forced, failure: "offline")
        if forced {
            #expect(reason?.contains("forced refresh") == true && reason?.contains("offline") == true)
        } else {
            #expect(reason == nil)
        }
    }

    @Test("A backoff ends on the manual clock: asked again once its time comes")
    func backoffEndsWithTime() {
        let clock = ManualClock()
        let notBefore = clock.now.addingTimeInterval(30)
        func opening() -> FallbackChain.Opening {
            FallbackChain.opening(freshness: nil, complete: false, removedButKept: false, notBefore: notBefore, now: clock.now, fetchRunning: false)
        }
        #expect(opening() == .backingOff(until: notBefore))
        clock.advance(by: .seconds(29))
        #expect(opening() == .backingOff(until: notBefore))
        clock.advance(by: .seconds(1))
        #expect(opening() == .askOrigin)
    }
}
