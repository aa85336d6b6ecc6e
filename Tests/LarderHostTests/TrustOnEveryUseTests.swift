import Foundation
import LarderFormat
@testable import LarderHost
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Issue 20: with trusted keys, expiry and every other check apply to the stored document on
/// every use, whether the origin answered 200 or 304: a 304 never renews an expired document,
/// an origin that answers 304 forever cannot freeze a device on an expired revision, and
/// content prepared before its document expired is not shown after.
@Suite("Trust on every use")
struct TrustOnEveryUseTests {
    /// Publishes the onboarding sample signed by `key`, valid for `validity` seconds.
    @discardableResult
    static func publish(_ fixture: HostFixture, key: SigningKey, validity: Int64) throws -> JourneyDocument {
        try SignedDocumentTests.publish(fixture, "onboarding", key: key, validity: validity)
    }

    static func kinds(_ host: JourneyHost) async -> [TimelineEntry.Kind] { await host.timeline().map(\.kind) }

    /// An origin serving the onboarding sample signed for an hour, which one launch of a host
    /// trusting the key accepted (online, from the network).
    struct Accepted {
        let fixture: HostFixture
        let key: SigningKey
        let document: JourneyDocument
        let embedded: String?

        init(withEmbeddedDefault: Bool = false) async throws {
            fixture = try HostFixture()
            key = try SigningKey.generate()
            document = try TrustOnEveryUseTests.publish(fixture, key: key, validity: 3600)
            embedded = withEmbeddedDefault ? try fixture.archive("legacy-prompt") : nil
            let host = try self.host()
            #expect(try await host.prepare().source == .network)
            await host.dispose()
        }

        /// A new launch.
        func host() throws -> JourneyHost { try SignedDocumentTests.host(fixture, trusting: [key.publicKey], embedded: embedded) }
    }

    @Test("After expiry nothing renews the stored document: the origin is asked without a validator and its expired copy is refused")
    func aRevalidationAfterExpiryRenewsNothing() async throws {
        let accepted = try await Accepted()
        let fixture = accepted.fixture
        fixture.clock.advance(by: .seconds(2 * 3600))
        let host = try accepted.host()
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .rejected, "\(String(describing: error))")
        #expect(!(await Self.kinds(host)).contains(.revalidated))
        // The expired document is not a validator: a 304 cannot answer it.
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] == nil)
        let rejections = await SignedDocumentTests.rejections(host)
        #expect(rejections.contains { $0.hasPrefix("rejected: cached revision 1: expired at ") }, "\(rejections)")
        #expect(rejections.contains { $0.hasPrefix("rejected: expired at ") }, "\(rejections)")
        #expect(try await host.status().revision == nil)
        await host.dispose()
    }

    @Test("An origin answering 304 forever does not keep an expired revision in service; the embedded default is shown")
    func anOriginAnswering304ForeverFreezesNothing() async throws {
        let accepted = try await Accepted(withEmbeddedDefault: true)
        let fixture = accepted.fixture
        fixture.origin.behaviour = .status(304, ["etag": "\"anything\""])
        for hours in [2, 24, 24 * 30] {
            fixture.clock.advance(by: .seconds(Int64(hours) * 3600))
            let host = try accepted.host()
            let flow = try await host.resolveFlow()
            #expect(flow.source == .embedded && flow.bundle != accepted.document.bundle, "after \(hours) h: \(flow)")
            #expect(!(await Self.kinds(host)).contains(.revalidated))
            await host.dispose()
        }
    }

    @Test("A 304 that arrives after the stored document expired is refused, not taken as a revalidation")
    func a304ArrivingAfterExpiryIsRefused() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        try Self.publish(fixture, key: key, validity: 3600)
        let host = try SignedDocumentTests.host(fixture, trusting: [key.publicKey])
        try await host.prepare()
        fixture.origin.behaviour = .hang
        let refreshing = Task { await host.refresh(force: true) }
        #expect(await eventually(within: .seconds(10)) { fixture.origin.hangingCount == 1 })
        // Sent while the document was valid, with its validator; answered 304 once it expired.
        #expect(fixture.origin.journeyRequests.last?.headers["If-None-Match"] != nil)
        fixture.clock.advance(by: .seconds(3601))
        fixture.origin.behaviour = .serve
        fixture.origin.release()
        let failure = await refreshing.value
        #expect(failure?.code == .rejected, "\(String(describing: failure))")
        let kinds = await Self.kinds(host)
        #expect(!kinds.contains(.revalidated), "\(kinds)")
        #expect(await SignedDocumentTests.rejections(host).contains { $0.hasPrefix("rejected: expired at ") })
        #expect(try await host.status().failures == 1)
        await host.dispose()
    }

    @Test("Content prepared before its document expired is not presented after, even inside the freshness window")
    func preparedContentIsNotShownPastItsExpiry() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        try Self.publish(fixture, key: key, validity: 300)
        let host = try SignedDocumentTests.host(fixture, trusting: [key.publicKey])
        await host.setForeground(false)
        try await host.prepare()
        // 6 minutes: younger than the 10-minute refresh interval, but past the 5-minute expiry.
        fixture.clock.advance(by: .seconds(360))
        let error = await #expect(throws: HostError.self) { try await host.present() }
        #expect(error?.code == .rejected, "\(String(describing: error))")
        #expect(await host.presentationState == .hidden)
        await host.dispose()
    }

    @Test("Offline after expiry the stored revision is not served stale: the embedded default is, and the timeline says why")
    func anExpiredRevisionIsNotServedStale() async throws {
        let accepted = try await Accepted(withEmbeddedDefault: true)
        let fixture = accepted.fixture
        fixture.origin.behaviour = .offline
        // Before the expiry the cached revision is served stale, as before.
        fixture.clock.advance(by: .seconds(40 * 60))
        do {
            let host = try accepted.host()
            let flow = try await host.resolveFlow()
            #expect(flow.stale && flow.bundle == accepted.document.bundle)
            await host.dispose()
        }
        fixture.clock.advance(by: .seconds(3600))
        let host = try accepted.host()
        let flow = try await host.resolveFlow()
        #expect(flow.source == .embedded, "\(flow)")
        #expect(await SignedDocumentTests.rejections(host).contains { $0.hasPrefix("rejected: cached revision 1: expired at ") })
        await host.dispose()
    }

    @Test("An older revision kept for the renderer gate is not served past its own expiry")
    func theRendererGatesFallbackExpiresToo() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        @discardableResult
        func publish(_ archive: String, validity: Int64) throws -> JourneyDocument {
            let report = try OriginPublisher.publish(
                archives: [archive], to: fixture.root + "/origin",
                journey: JourneyPublication(
                    id: HostFixture.journey, key: HostFixture.key, now: fixture.clock.now, signingKey: key, validity: validity))
            return try #require(report.journey)
        }
        let old = try publish(try fixture.archive("onboarding"), validity: 2 * 86_400)
        do {
            let host = try SignedDocumentTests.host(fixture, trusting: [key.publicKey])
            try await host.prepare()
            await host.dispose()
        }
        // Revision 2 needs a newer renderer: revision 1 is served instead while it is valid.
        fixture.clock.advance(by: .seconds(86_400))
        try publish(try fixture.archive("onboarding", rendererProtocol: 2), validity: 7 * 86_400)
        do {
            let host = try SignedDocumentTests.host(fixture, trusting: [key.publicKey])
            let served = try await host.prepare()
            #expect(served.revision == old.revision && served.fallbackReason != nil)
            await host.dispose()
        }
        // Past revision 1's expiry (revision 2 is still valid), nothing fits.
        fixture.clock.advance(by: .seconds(86_400 + 60))
        let host = try SignedDocumentTests.host(fixture, trusting: [key.publicKey])
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .incompatible, "\(String(describing: error))")
        #expect(await host.timeline().contains { $0.kind == .rendererGate && $0.detail.hasPrefix("revision 1 is not served instead: expired at ") })
        await host.dispose()
    }

    @Test("A signed expiry that is not a date is refused as malformed, not as expired")
    func aMalformedExpirySaysSo() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        var document = try Self.publish(fixture, key: key, validity: 3600)
        document.expires = "tomorrow"
        try document.sign(with: key)
        try SignedDocumentTests.serve(document.canonicalBytes, fixture)
        let host = try SignedDocumentTests.host(fixture, trusting: [key.publicKey])
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .rejected)
        #expect(error?.message.contains("expired at") == false, "\(String(describing: error))")
        #expect(await SignedDocumentTests.rejections(host) == ["rejected: its expiry 'tomorrow' is not an ISO 8601 date and time in UTC"])
        await host.dispose()
    }
}
