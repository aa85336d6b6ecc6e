import Foundation
import LarderHost
import LarderTestSupport
import Testing

/// `JourneyConfiguration.debugOrigin` [002]: a staging origin for debug builds that a release
/// build refuses to run with.
@Suite("Debug-only origin")
struct DebugOriginTests {
    static let staging = URL(string: "http://staging.test/")!

    @Test("In a debug build every request goes to the debug origin, which is part of the scope")
    func requestsGoToTheDebugOrigin() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        let releaseScope = configuration.scope
        configuration.debugOrigin = Self.staging

        let host = try fixture.host(configuration: configuration)
        try await host.prepare()

        #expect(fixture.origin.journeyRequests.map(\.url.absoluteString) == [Self.staging.absoluteString + "journeys/onboarding.json"])
        #expect(!fixture.origin.fileRequests.isEmpty)
        #expect(fixture.origin.fileRequests.allSatisfy { $0.url.host == "staging.test" })
        #expect(configuration.requestOrigin == Self.staging)
        #expect(configuration.origin == URL(string: "http://origin.test/")!, "the release origin is kept as it was")
        #expect(configuration.scope != releaseScope, "content authorised by staging is never taken for the release origin's")
        await host.dispose()
    }

    @Test("Without a debug origin requests go to the origin")
    func withoutItTheOrigin() {
        var configuration = JourneyConfiguration(publishableKey: "k", journeyID: "j", origin: URL(string: "https://cdn.example/")!)
        #expect(configuration.requestOrigin.absoluteString == "https://cdn.example/")
        configuration.debugOrigin = Self.staging
        configuration.debugOrigin = nil
        #expect(configuration.documentURL.absoluteString == "https://cdn.example/journeys/j.json")
    }

    @Test("A release build stops at once when a debug origin is set")
    func releaseBuildStops() async {
        await #expect(processExitsWith: .failure) {
            JourneyConfiguration.requireDebugBuild(for: URL(string: "http://staging.test/")!, debugBuild: false)
        }
    }

    @Test("A release build without a debug origin, and a debug build with one, go on")
    func otherwiseNothingStops() {
        JourneyConfiguration.requireDebugBuild(for: nil, debugBuild: false)
        JourneyConfiguration.requireDebugBuild(for: Self.staging, debugBuild: true)
    }
}
