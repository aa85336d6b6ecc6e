import Foundation
import LarderCache
import LarderHost
import LarderTestSupport
import Testing

/// The bundle a preparation chose from the cache can leave it before the preparation leases it
/// (another process sharing the cache evicts it): that is a cache miss, resolved again as any
/// miss is (fetched again, or the embedded default when offline), never an error.
@Suite struct VanishedBundleTests {
    enum Network: String, CaseIterable, CustomTestStringConvertible {
        case online, offlineWithEmbedded
        var testDescription: String { rawValue }
    }

    @Test(arguments: Network.allCases)
    func aBundleEvictedBetweenChoiceAndLeaseIsACacheMiss(_ network: Network) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let configuration = fixture.configuration(embedded: network == .offlineWithEmbedded ? try fixture.archive("legacy-prompt") : nil)
        // An earlier launch brought the bundle in.
        let earlier = try fixture.host(configuration: configuration)
        let cached = try await earlier.prepare()
        await earlier.dispose()

        let renderer = ScriptedRenderer()
        renderer.holdsStarts = true
        let host = try fixture.host(renderer, configuration: configuration)
        if network == .offlineWithEmbedded { fixture.origin.behaviour = .offline }
        let preparing = Task { try await host.prepare() }
        // Chosen from the cache (revalidated online, served stale offline); the renderer's start
        // holds the preparation before its lease.
        // Generous: it ends as soon as the choice is made (well under a second alone).
        let chosen = await eventually(within: .seconds(60)) {
            guard renderer.waitingStarts == 1 else { return false }
            return await host.timeline().contains { [.fresh, .revalidated, .servedStale].contains($0.kind) }
        }
        let soFar = await host.timeline()
        #expect(chosen, "\(soFar)")
        // Another process sharing the cache evicts it meanwhile.
        let other = try LarderCache(at: fixture.root + "/cache")
        #expect(try other.evict(toBytes: 0).evicted.contains(cached.bundle))
        renderer.releaseStarts()

        let prepared = try await preparing.value
        let timeline = await host.timeline()
        #expect(timeline.contains { $0.kind == .bundleVanished && $0.detail.contains("\(cached.bundle)") }, "\(timeline)")
        switch network {
        case .online:
            #expect(prepared.bundle == cached.bundle)
            #expect(prepared.source != .embedded && !prepared.stale)
            #expect(timeline.contains { $0.kind == .bundleFetched }, "\(timeline)")
            #expect(try fixture.cache.bundle(cached.bundle)?.complete == true)
            #expect(renderer.record.loadedBundles == [cached.bundle])
        case .offlineWithEmbedded:
            #expect(prepared.source == .embedded)
            #expect(prepared.revision == 0)
        }
        await host.dispose()
    }
}
