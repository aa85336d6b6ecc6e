import Foundation
import LarderHost
import Testing

/// Bad answers from an origin: each gets its own typed error, renews nothing, stores nothing
/// and leaves cached content usable.
@Suite("Bad answers from the origin")
struct BadAnswerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var behaviour: FakeOrigin.Behaviour
        var code: HostError.Code
        var testDescription: String { name }
    }

    static let digest = "sha256:" + String(repeating: "ab", count: 32)

    static let cases: [Case] = [
        Case(name: "not JSON", behaviour: .body(200, "<html>oops</html>"), code: .malformedDocument),
        Case(name: "a JSON array", behaviour: .body(200, "[]"), code: .malformedDocument),
        Case(
            name: "a missing field", behaviour: .body(200, #"{"journey":"onboarding","revision":1,"refresh":600,"published":"x"}"#),
            code: .malformedDocument),
        Case(
            name: "an unknown field",
            behaviour: .body(
                200, #"{"bundle":"\#(digest)","extra":1,"journey":"onboarding","published":"x","refresh":600,"revision":1}"#),
            code: .malformedDocument),
        Case(
            name: "an uppercase digest",
            behaviour: .body(
                200, #"{"bundle":"\#(digest.uppercased())","journey":"onboarding","published":"x","refresh":600,"revision":1}"#),
            code: .malformedDocument),
        Case(
            name: "another journey's document",
            behaviour: .body(200, #"{"bundle":"\#(digest)","journey":"paywall","published":"x","refresh":600,"revision":1}"#),
            code: .malformedDocument),
        Case(
            name: "a bundle the origin does not have",
            behaviour: .body(200, #"{"bundle":"\#(digest)","journey":"onboarding","published":"x","refresh":600,"revision":1}"#),
            code: .unavailable),
        Case(name: "a redirect", behaviour: .status(302, ["location": "http://elsewhere.test/"]), code: .unavailable),
        Case(name: "a server error", behaviour: .status(500, [:]), code: .unavailable),
    ]

    @Test("With nothing cached, each bad answer is a typed error and stores nothing", arguments: cases)
    func nothingCached(_ bad: Case) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        fixture.origin.behaviour = bad.behaviour
        let host = try fixture.host()
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == bad.code)
        let status = try await host.status()
        #expect(status.revision == nil)
        #expect(status.failures == 1)
        #expect(try fixture.cache.bundles().isEmpty)
    }

    @Test("With content cached, each bad answer leaves it usable and unrenewed", arguments: cases)
    func contentCached(_ bad: Case) async throws {
        let fixture = try HostFixture()
        let published = try fixture.publish("onboarding")
        let host = try fixture.host()
        try await host.prepare()
        let renewed = try await host.status().renewed
        fixture.origin.behaviour = bad.behaviour
        fixture.clock.advance(by: .seconds(31 * 60))
        let journey = try await host.prepare()
        #expect(journey.bundle == published.bundle)
        #expect(journey.stale)
        #expect(try await host.status().renewed == renewed)
    }
}
