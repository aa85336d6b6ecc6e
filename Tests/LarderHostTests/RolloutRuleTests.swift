import Foundation
import LarderFormat
@testable import LarderHost
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Issue 15: during a staged rollout the host prepares and caches only the bundle its identity
/// gets; the same identity always gets the same one.
@Suite("Staged rollouts")
struct RolloutRuleTests {
    @discardableResult
    static func publish(_ fixture: HostFixture, _ sample: String, rollout: Int? = nil) throws -> JourneyDocument {
        let report = try OriginPublisher.publish(
            archives: [try fixture.archive(sample)], to: fixture.root + "/origin",
            journey: JourneyPublication(id: HostFixture.journey, key: HostFixture.key, now: fixture.clock.now, rollout: rollout))
        return try #require(report.journey)
    }

    /// The first user id in (or out of) a rollout of `percent`.
    static func user(in included: Bool, percent: Int) -> String {
        (0...).lazy.map { "usr_\($0)" }.first { (JourneyDocument.Rollout.bucket(journey: HostFixture.journey, id: $0) < percent) == included }!
    }

    @Test("Each identity gets, fetches and keeps only its own bundle; raising the percentage keeps everyone in")
    func eachIdentityGetsItsBundle() async throws {
        let inside = Self.user(in: true, percent: 10)
        let outside = Self.user(in: false, percent: 50)
        for (user, sample) in [(inside, "paywall"), (outside, "onboarding")] {
            let fixture = try HostFixture()
            let before = try Self.publish(fixture, "onboarding")
            let document = try Self.publish(fixture, "paywall", rollout: 10)
            #expect(document.rollout == JourneyDocument.Rollout(percent: 10, previous: before.bundle))
            let wanted = try fixture.cache.install(archiveAt: try fixture.archive(sample)).bundle
            let other = sample == "paywall" ? before.bundle : document.bundle
            _ = try fixture.cache.evict(toBytes: 0)  // nothing cached: the host fetches what it needs

            let host = try fixture.host(configuration: fixture.configuration(identity: user))
            let prepared = try await host.prepare()
            #expect(prepared.bundle == wanted && prepared.revision == 2, "\(user)")
            #expect(try fixture.cache.bundle(wanted)?.complete == true)
            #expect(try fixture.cache.bundle(other) == nil, "\(user) fetched the bundle of the other group")
            await host.dispose()

            // Raised to 50%: whoever was in stays in; the outside user (above 50) stays out.
            let raised = try Self.publish(fixture, "paywall", rollout: 50)
            #expect(raised.revision == 3 && raised.rollout?.previous == before.bundle)
            fixture.clock.advance(by: .seconds(3600))
            let again = try fixture.host(configuration: fixture.configuration(identity: user))
            #expect(try await again.prepare().bundle == wanted)
            await again.dispose()
        }
    }

    @Test("Without a user id the anonymous visitor id decides, the same on every launch")
    func anonymousVisitorsCountByVisitorID() async throws {
        let fixture = try HostFixture()
        let before = try Self.publish(fixture, "onboarding")
        let document = try Self.publish(fixture, "paywall", rollout: 50)
        let host = try fixture.host()
        let visitor = try await host.captureQueue().visitor()
        let expected = JourneyDocument.Rollout.bucket(journey: HostFixture.journey, id: visitor) < 50 ? document.bundle : before.bundle
        #expect(try await host.prepare().bundle == expected)
        await host.dispose()
        fixture.clock.advance(by: .seconds(3600))
        let relaunched = try fixture.host()
        #expect(try await relaunched.prepare().bundle == expected)
        await relaunched.dispose()
    }

    @Test("Completing a rollout gives everyone the new bundle; a rollout needs an earlier revision")
    func completingARollout() async throws {
        let fixture = try HostFixture()
        let error = #expect(throws: PublishError.self) { try Self.publish(fixture, "paywall", rollout: 10) }
        #expect(error?.message.contains("no earlier revision") == true)
        try Self.publish(fixture, "onboarding")
        try Self.publish(fixture, "paywall", rollout: 10)
        let done = try Self.publish(fixture, "paywall", rollout: 100)
        #expect(done.rollout == nil && done.revision == 3)
        let outside = Self.user(in: false, percent: 10)
        let host = try fixture.host(configuration: fixture.configuration(identity: outside))
        #expect(try await host.prepare().bundle == done.bundle)
        await host.dispose()
    }
}
