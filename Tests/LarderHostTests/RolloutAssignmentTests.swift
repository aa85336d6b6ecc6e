import Foundation
import LarderFormat
@testable import LarderHost
import LarderPack
import LarderTestSupport
import Testing

/// Issue 21 item 11 (seed 002): prepared and presented results say where the flow came from,
/// the published revision and date, and which side of a rollout the identity is on.
@Suite("Rollout assignment in results")
struct RolloutAssignmentTests {
    @Test("Inside and outside a 10% rollout: prepared and presented carry source, revision, publish date and assignment")
    func bothSides() async throws {
        for included in [true, false] {
            let user = RolloutRuleTests.user(in: included, percent: 10)
            let fixture = try HostFixture()
            let before = try RolloutRuleTests.publish(fixture, "onboarding")
            let document = try RolloutRuleTests.publish(fixture, "paywall", rollout: 10)
            let host = try fixture.host(configuration: fixture.configuration(identity: user))
            let prepared = try await host.prepare()
            let bucket = JourneyDocument.Rollout.bucket(journey: HostFixture.journey, id: user)
            let expected = RolloutAssignment(bucket: bucket, percent: 10, side: included ? .new : .previous)
            #expect(prepared.assignment == expected, "\(user)")
            #expect(prepared.bundle == (included ? document.bundle : before.bundle))
            #expect(prepared.source == .network && prepared.revision == 2 && prepared.published == document.published)
            let session = try await host.present()
            #expect(session.source == .network && session.revision == 2 && session.published == document.published)
            #expect(session.assignment == expected)
            await host.dispose()
        }
    }

    @Test("Without a rollout there is no assignment; a revalidated revision keeps its publish date")
    func noRollout() async throws {
        let fixture = try HostFixture()
        let document = try RolloutRuleTests.publish(fixture, "onboarding")
        let host = try fixture.host()
        let prepared = try await host.prepare()
        #expect(prepared.assignment == nil && prepared.published == document.published && prepared.revision == 1)
        await host.dispose()
        fixture.clock.advance(by: .seconds(60))
        let cached = try fixture.host()
        let again = try await cached.prepare()
        #expect(again.source == .revalidated && again.published == document.published)
        await cached.dispose()
    }
}
