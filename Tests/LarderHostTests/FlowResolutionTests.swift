import Foundation
import LarderTestSupport
import LarderHost
import Testing

/// DESIGN.md Host, fallback chain: fresh cache, live fetch with a hard deadline, stale cache,
/// embedded default; a throwing and an optional-returning entry point; results say where the
/// content came from.
@Suite("Flow resolution")
struct FlowResolutionTests {
    enum Setup: String, Sendable, CaseIterable {
        case firstFetch, freshCache, revalidated, offlineWithCache, hangingWithCache, offlineEmbedded, offlineNothing
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var setup: Setup
        var source: ContentSource?
        var stale = false
        var testDescription: String { setup.rawValue }
    }

    @Test(
        "Each link of the fallback chain, and where the content came from",
        arguments: [
            Case(setup: .firstFetch, source: .network),
            Case(setup: .freshCache, source: .cache),
            Case(setup: .revalidated, source: .revalidated),
            Case(setup: .offlineWithCache, source: .cache, stale: true),
            Case(setup: .hangingWithCache, source: .cache, stale: true),
            Case(setup: .offlineEmbedded, source: .embedded),
            Case(setup: .offlineNothing, source: nil),
        ])
    func chain(_ rule: Case) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let embedded = rule.setup == .offlineEmbedded ? try fixture.archive("legacy-prompt") : nil
        let host = try fixture.host(configuration: fixture.configuration(embedded: embedded))
        await host.setForeground(false)
        switch rule.setup {
        case .firstFetch:
            break
        case .freshCache:
            _ = try await host.resolveFlow()
            fixture.clock.advance(by: .seconds(60))
        case .revalidated:
            _ = try await host.resolveFlow()
            fixture.clock.advance(by: .seconds(31 * 60))
        case .offlineWithCache:
            _ = try await host.resolveFlow()
            fixture.clock.advance(by: .seconds(31 * 60))
            fixture.origin.behaviour = .offline
        case .hangingWithCache:
            _ = try await host.resolveFlow()
            fixture.clock.advance(by: .seconds(31 * 60))
            fixture.origin.behaviour = .hang
        case .offlineEmbedded, .offlineNothing:
            fixture.origin.behaviour = .offline
        }
        if rule.setup == .hangingWithCache {
            let pending = Task { await host.resolveFlowIfAvailable() }
            #expect(await eventually { fixture.origin.hangingCount == 1 })
            fixture.clock.advance(by: .seconds(5))  // the live fetch's hard deadline
            let flow = await pending.value
            #expect(flow?.source == rule.source)
            #expect(flow?.stale == rule.stale)
            fixture.origin.behaviour = .offline
            fixture.origin.release()
            return
        }
        let optional = await host.resolveFlowIfAvailable()
        #expect(optional?.source == rule.source)
        #expect(optional?.stale ?? false == rule.stale)
        if rule.source == nil {
            let error = await #expect(throws: HostError.self) { try await host.resolveFlow() }
            #expect(error?.isRetryable == true)
        } else if rule.setup == .offlineEmbedded {
            #expect(optional?.revision == 0)
            #expect(try await host.present().revision == 0)
        }
    }
}
