import Foundation
import LarderFormat
import LarderTestSupport
import LarderTransport
import Testing
@testable import LarderHost

/// Issue 35 item 7: what a request carries (the publishable key, a capture's visitor, session,
/// context and body) never follows a redirect to another origin. Two real servers on 127.0.0.1,
/// on different ports (different origins): the first answers every request with a 307 to the
/// second, which must receive nothing.
@Suite struct RedirectOriginTests {
    /// A server that records what reaches it, and one that sends everything there with `status`.
    static func servers(status: Int = 307) throws -> (redirecting: FaultOrigin, elsewhere: FaultOrigin) {
        let elsewhere = try FaultOrigin { _ in .respond(status: 204, body: []) }
        let target = elsewhere.base
        let redirecting = try FaultOrigin { request in
            .respond(status: status, headers: [("Location", target.absoluteString + request.path.dropFirst())], body: [])
        }
        return (redirecting, elsewhere)
    }

    @Test(arguments: [307, 308, 302, 301])
    func aCaptureRedirectedToAnotherOriginStaysQueuedAndReachesNobodyThere(_ status: Int) async throws {
        let (redirecting, elsewhere) = try Self.servers(status: status)
        defer { redirecting.stop(); elsewhere.stop() }
        let folder = try CaptureFolder()
        let queue = try CaptureQueue(path: folder.queuePath)
        let event = captureEvent(1)
        #expect(try queue.enqueue(event))
        let sink = HTTPCaptureSink(
            endpoint: redirecting.base.appendingPathComponent("capture"), publishableKey: "pk_live_secret", transport: CurlTransport.shared,
            timeout: .seconds(10))

        let result = await queue.deliver(to: sink)

        #expect(result.delivered == 0 && result.remaining == 1, "\(result)")
        #expect(result.error?.code == .unavailable)
        #expect(result.error?.transportError?.code == .redirectRefused, "\(String(describing: result.error))")
        #expect(try queue.pending() == [event])
        #expect(redirecting.requests.map(\.method) == ["POST"])
        #expect(redirecting.requests.first?.headers["x-larder-visitor"] == event.visitor)
        #expect(elsewhere.connectionsAccepted == 0, "\(elsewhere.requests.map(\.headers))")
    }

    @Test func aCaptureRedirectedWithinItsOriginIsDelivered() async throws {
        let collector = try FaultOrigin { request in
            request.path == "/old" ? .respond(status: 307, headers: [("Location", "/capture")], body: []) : .respond(status: 204, body: [])
        }
        defer { collector.stop() }
        let folder = try CaptureFolder()
        let queue = try CaptureQueue(path: folder.queuePath)
        #expect(try queue.enqueue(captureEvent(1)))
        let sink = HTTPCaptureSink(endpoint: collector.base.appendingPathComponent("old"), publishableKey: "pk", transport: CurlTransport.shared)

        let result = await queue.deliver(to: sink)

        #expect(result == CaptureDelivery(delivered: 1, remaining: 0), "\(result)")
        #expect(collector.requests.map(\.path) == ["/old", "/capture"])
        #expect(collector.requests.last?.headers["x-larder-event"] == "event-1")
    }

    @Test func aJourneyDocumentRedirectedToAnotherOriginIsNotFetchedAndTheKeyStaysHome() async throws {
        let (redirecting, elsewhere) = try Self.servers()
        defer { redirecting.stop(); elsewhere.stop() }
        let fixture = try HostFixture()
        var configuration = fixture.configuration()
        configuration.origin = redirecting.base
        configuration.capture = nil
        let host = try JourneyHost(
            configuration: configuration, cache: fixture.cache, renderer: ScriptedRenderer(), storage: fixture.root + "/host",
            transport: CurlTransport.shared, clock: fixture.clock, coordinator: fixture.coordinator)

        let failure = await #expect(throws: HostError.self) { try await host.prepare() }

        #expect(failure?.code == .unavailable, "\(String(describing: failure))")
        #expect(redirecting.requests.map(\.path) == ["/journeys/onboarding.json"])
        #expect(redirecting.requests.first?.headers["x-larder-key"] == HostFixture.key)
        #expect(elsewhere.connectionsAccepted == 0, "\(elsewhere.requests.map(\.headers))")
        await host.dispose()
    }
}
