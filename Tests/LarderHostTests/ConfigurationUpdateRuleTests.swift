import Foundation
import LarderFormat
import LarderHost
import LarderPack
import LarderTestSupport
import Testing

/// Issue 21, item 2: `updateConfiguration` applies every field, and invalidates what the field
/// decides: another scope discards everything, another embedded default replaces content
/// prepared from the old one, new download limits reach the next fetch, new trusted keys check
/// the stored document again, a policy switched from keep to discard discards what was kept
/// after a removal; deadlines and capture settings apply from their next use and invalidate
/// nothing.
@Suite("Configuration update rules")
struct ConfigurationUpdateRuleTests {
    struct Field: Sendable, CustomTestStringConvertible {
        var name: String
        var apply: @Sendable (inout JourneyConfiguration, HostFixture) throws -> Void
        /// Whether content prepared from the origin (revision 1, unsigned) is discarded.
        var discardsPrepared: Bool
        var testDescription: String { name }
    }

    static let fields = [
        Field(name: "identity", apply: { c, _ in c.identity = JourneyIdentity(externalID: "usr_2") }, discardsPrepared: true),
        Field(name: "key", apply: { c, _ in c.publishableKey = "pk_other" }, discardsPrepared: true),
        Field(name: "journey", apply: { c, _ in c.journeyID = "paywall" }, discardsPrepared: true),
        Field(name: "origin", apply: { c, _ in c.origin = URL(string: "http://origin.test/v2/")! }, discardsPrepared: true),
        Field(name: "trusted keys", apply: { c, _ in c.trustedKeys = [try SigningKey.generate().publicKey] }, discardsPrepared: true),
        Field(name: "embedded default", apply: { c, f in c.embeddedDefault = try f.archive("paywall") }, discardsPrepared: false),
        Field(name: "download", apply: { c, _ in c.download.requestTimeout = .seconds(7) }, discardsPrepared: false),
        Field(name: "removed journey", apply: { c, _ in c.removedJourney = .keepServing }, discardsPrepared: false),
        Field(name: "fetch deadline", apply: { c, _ in c.fetchDeadline = .seconds(2) }, discardsPrepared: false),
        Field(name: "presentation deadline", apply: { c, _ in c.presentationDeadline = .seconds(3) }, discardsPrepared: false),
        Field(name: "capture context", apply: { c, _ in c.capture?.context = ["plan": "annual"] }, discardsPrepared: false),
        Field(name: "capture off", apply: { c, _ in c.capture = nil }, discardsPrepared: false),
    ]

    @Test("Each field, applied to a host with revision 1 prepared: what it invalidates", arguments: fields)
    func eachField(_ field: Field) async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        let renderer = ScriptedRenderer()
        var configuration = fixture.configuration()
        let host = try fixture.host(renderer, configuration: configuration)
        let prepared = try await host.prepare()
        let requests = fixture.origin.journeyRequestCount

        try field.apply(&configuration, fixture)
        await host.updateConfiguration(configuration)

        #expect(await host.configuration == configuration)
        if field.discardsPrepared {
            #expect(await eventually { fixture.origin.journeyRequestCount == requests + 1 })
            #expect(await host.timeline().contains { $0.kind == .invalidated })
            #expect(await host.readiness != .ready(prepared))
        } else {
            for _ in 0..<500 { await Task.yield() }
            #expect(fixture.origin.journeyRequestCount == requests)
            #expect(await host.readiness == .ready(prepared))
            #expect(renderer.record.loadedBundles == [prepared.bundle])
            #expect(try await host.present().revision == 1)
        }
    }

    @Test("Another embedded default is served, and none is none")
    func embeddedDefaultIsReplaced() async throws {
        let fixture = try HostFixture()
        fixture.origin.behaviour = .offline
        let first = try fixture.archive("legacy-prompt")
        let host = try fixture.host(configuration: fixture.configuration(embedded: first))
        let old = try #require(await host.resolveFlowIfAvailable())
        #expect(old.source == .embedded)

        await host.updateConfiguration(fixture.configuration(embedded: try fixture.archive("paywall")))
        let replaced = try #require(await host.resolveFlowIfAvailable())
        #expect(replaced.source == .embedded)
        #expect(replaced.bundle != old.bundle)
        #expect(replaced.bundle == (try fixture.cache.install(archiveAt: try fixture.archive("paywall")).bundle))

        await host.updateConfiguration(fixture.configuration(embedded: nil))
        #expect(await host.resolveFlowIfAvailable() == nil)
    }

    @Test("Content prepared from the old embedded default is prepared again: at once while hidden, after dismissal while shown")
    func preparedEmbeddedContentIsPreparedAgain() async throws {
        let fixture = try HostFixture()
        fixture.origin.behaviour = .offline
        let renderer = ScriptedRenderer()
        let host = try fixture.host(renderer, configuration: fixture.configuration(embedded: try fixture.archive("legacy-prompt")))
        let old = try await host.prepare()
        #expect(old.source == .embedded)
        let paywall = try fixture.cache.install(archiveAt: try fixture.archive("paywall")).bundle

        await host.updateConfiguration(fixture.configuration(embedded: try fixture.archive("paywall")))
        #expect(await eventually { if case .ready(let journey) = await host.readiness { journey.bundle == paywall } else { false } })
        #expect(renderer.record.loadedBundles.last == paywall)

        // Shown: the open presentation keeps what it shows; the next one has the new default.
        let session = try await host.present()
        #expect(session.bundle == paywall)
        await host.updateConfiguration(fixture.configuration(embedded: try fixture.archive("legacy-prompt")))
        #expect(await host.presentationState == .presented(session))
        #expect(renderer.record.loadedBundles.last == paywall)
        await host.dismiss()
        #expect(await eventually { if case .ready(let journey) = await host.readiness { journey.bundle == old.bundle } else { false } })
        #expect(try await host.present().bundle == old.bundle)
    }

    @Test("New download limits reach the next bundle fetch")
    func downloadLimitsApplyToTheNextFetch() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        let host = try fixture.host(configuration: configuration)
        try await host.prepare()
        #expect(!fixture.origin.fileRequests.isEmpty)
        #expect(fixture.origin.fileRequests.allSatisfy { $0.timeout == .seconds(60) })
        let before = fixture.origin.fileRequests.count

        configuration.download.requestTimeout = .seconds(7)
        await host.updateConfiguration(configuration)
        try fixture.publish("paywall")
        await host.refresh()
        let later = fixture.origin.fileRequests.dropFirst(before)
        #expect(!later.isEmpty)
        #expect(later.allSatisfy { $0.timeout == .seconds(7) }, "\(later.map(\.timeout))")
    }

    @Test("New trusted keys: a stored document none of them signed is discarded, shown or not; one they still trust stays")
    func trustedKeysCheckTheStoredDocumentAgain() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        try SignedDocumentTests.publish(fixture, "onboarding", key: key)
        let renderer = ScriptedRenderer()
        var configuration = fixture.configuration()
        configuration.trustedKeys = [key.publicKey]
        let host = try fixture.host(renderer, configuration: configuration)
        let session = try await host.present()
        let requests = fixture.origin.journeyRequestCount

        // A second key for a rotation: the stored document is still signed by a trusted key.
        configuration.trustedKeys.append(try SigningKey.generate().publicKey)
        await host.updateConfiguration(configuration)
        for _ in 0..<500 { await Task.yield() }
        #expect(await host.presentationState == .presented(session))
        #expect(fixture.origin.journeyRequestCount == requests)

        // The signing key is dropped: what it signed is neither shown nor served any more.
        configuration.trustedKeys.removeFirst()
        await host.updateConfiguration(configuration)
        #expect(await host.presentationState == .hidden)
        #expect(await host.timeline().contains { $0.kind == .invalidated })
        #expect(await eventually { fixture.origin.journeyRequestCount == requests + 1 })
        #expect(await eventually { await host.readiness == .failed(.rejected) })
        #expect(try await host.status().revision == nil)
    }

    @Test("From keep to discard: content kept in service after a confirmed 404 is discarded")
    func keepToDiscardDiscardsKeptContent() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration()
        configuration.removedJourney = .keepServing
        let host = try fixture.host(configuration: configuration)
        try await host.prepare()
        try fixture.unpublish()
        for _ in 0..<2 {
            fixture.clock.advance(by: .seconds(31 * 60))
            await host.refresh()
        }
        guard case .ready(let kept) = await host.readiness, kept.removed else {
            Issue.record("not kept after removal: \(await host.readiness)")
            return
        }

        configuration.removedJourney = .discard
        await host.updateConfiguration(configuration)
        #expect(await host.readiness == .denied(status: 404))
        #expect(try await host.status().revision == nil)
        #expect(try fixture.cache.bundle(kept.bundle) == nil)
    }

    @Test("A new fetch deadline bounds the next live fetch")
    func fetchDeadlineAppliesToTheNextFetch() async throws {
        let fixture = try HostFixture()
        try fixture.publish("onboarding")
        var configuration = fixture.configuration(embedded: try fixture.archive("legacy-prompt"))
        let host = try fixture.host(configuration: configuration)
        configuration.fetchDeadline = .seconds(1)
        await host.updateConfiguration(configuration)
        fixture.origin.behaviour = .hang
        let resolving = Task { await host.resolveFlowIfAvailable() }
        #expect(await eventually { fixture.origin.hangingCount == 1 && fixture.clock.sleeperCount > 0 })
        fixture.clock.advance(by: .seconds(1))
        #expect(await resolving.value?.source == .embedded)
        fixture.origin.release()
    }
}
