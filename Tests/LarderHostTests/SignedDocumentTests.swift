import Foundation
import LarderFormat
@testable import LarderHost
import LarderPack
import LarderPublish
import LarderTestSupport
import Testing

/// Issue 15: with trusted keys, the host acts only on journey documents a trusted key signed,
/// for this journey, unexpired, and never below a revision the scope already accepted; a
/// refused document changes nothing cached.
@Suite("Signed journey documents")
struct SignedDocumentTests {
    /// Publishes a sample signed by `key` (valid for `validity` seconds from the fixture's now).
    @discardableResult
    static func publish(_ fixture: HostFixture, _ sample: String, key: SigningKey?, validity: Int64 = 7 * 86_400) throws -> JourneyDocument {
        let report = try OriginPublisher.publish(
            archives: [try fixture.archive(sample)], to: fixture.root + "/origin",
            journey: JourneyPublication(
                id: HostFixture.journey, key: HostFixture.key, now: fixture.clock.now, signingKey: key, validity: validity))
        return try #require(report.journey)
    }

    static func serve(_ bytes: [UInt8], _ fixture: HostFixture) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: fixture.root + "/origin/journeys/\(HostFixture.journey).json"))
    }

    static func host(_ fixture: HostFixture, trusting keys: [PublicKey], embedded: String? = nil) throws -> JourneyHost {
        var configuration = fixture.configuration(embedded: embedded)
        configuration.trustedKeys = keys
        return try fixture.host(configuration: configuration)
    }

    static func rejections(_ host: JourneyHost) async -> [String] {
        await host.timeline().filter { $0.kind == .rejected }.map(\.detail)
    }

    @Test("Every single-byte change of a signed document is refused")
    func everySingleByteChangeIsRefused() throws {
        let key = try SigningKey.generate()
        var document = JourneyDocument(
            journey: "onboarding", revision: 5, bundle: SHA256Hasher.hash(Array("bundle".utf8)), refresh: 600,
            published: "2027-01-15T08:00:00Z", expires: "2027-01-22T08:00:00Z")
        try document.sign(with: key)
        let bytes = document.canonicalBytes
        let trust = DocumentTrust(keys: [key.publicKey])
        let now = try #require(DocumentTrust.date("2027-01-16T08:00:00Z"))
        #expect(trust.refusal(of: document, now: now, highestAccepted: 5) == nil)
        var accepted: [String] = []
        var parsed = 0
        for position in bytes.indices {
            for value in UInt8.min...UInt8.max where value != bytes[position] {
                var changed = bytes
                changed[position] = value
                guard let candidate = try? JourneyDocument(decoding: changed) else { continue }
                parsed += 1
                if trust.refusal(of: candidate, now: now, highestAccepted: 5) == nil, candidate.journey == "onboarding" {
                    accepted.append("byte \(position) -> \(value): \(String(decoding: changed, as: UTF8.self))")
                }
            }
        }
        #expect(accepted.isEmpty, "\(accepted.prefix(3))")
        // The property is not vacuous: many changes still parse and reach the signature check.
        #expect(parsed > 200)
    }

    @Test("A signed document from a trusted key is accepted and its revision becomes the floor")
    func aSignedDocumentIsAccepted() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        try Self.publish(fixture, "onboarding", key: key)
        let host = try Self.host(fixture, trusting: [key.publicKey])
        let prepared = try await host.prepare()
        #expect(prepared.source == .network)
        #expect(try HostStore(path: fixture.root + "/host/host.sqlite").highestAcceptedRevision(fixture.configuration().scope) == 1)
        #expect(await Self.rejections(host).isEmpty)
        await host.dispose()
    }

    @Test("Unsigned, unknown-key and tampered documents are refused; the cached revision is served stale, not renewed")
    func refusedDocumentsChangeNothingCached() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        let signed = try Self.publish(fixture, "onboarding", key: key)
        let paywall = try fixture.cache.install(archiveAt: try fixture.archive("paywall")).bundle
        let host = try Self.host(fixture, trusting: [key.publicKey])
        try await host.prepare()
        let renewed = try await host.status().renewed
        await host.dispose()

        var tampered = signed
        tampered.bundle = paywall  // pointed elsewhere after signing
        var unsigned = signed
        unsigned.signature = nil
        var stranger = signed
        try stranger.sign(with: try SigningKey.generate())
        let cases: [(JourneyDocument, String)] = [
            (tampered, "rejected: bad signature"), (unsigned, "rejected: not signed"),
            (stranger, "rejected: unknown key \(stranger.signature!.keyID)"),
        ]
        for (document, line) in cases {
            try Self.serve(document.canonicalBytes, fixture)
            fixture.clock.advance(by: .seconds(3600))  // past the window: a presentation must ask
            let restarted = try Self.host(fixture, trusting: [key.publicKey])
            let flow = try await restarted.resolveFlow()
            #expect(flow.stale && flow.source == .cache && flow.bundle == signed.bundle && flow.revision == 1, "\(line)")
            #expect(await Self.rejections(restarted) == [line])
            #expect(try await restarted.status().renewed == renewed, "a refused document renewed freshness")
            #expect(try await restarted.status().bundle == signed.bundle)
            await restarted.dispose()
        }
    }

    @Test("A replayed older signed document is a rollback, also after a restart and a discard")
    func aReplayedOlderDocumentIsRefused() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        let first = try Self.publish(fixture, "onboarding", key: key)
        let second = try Self.publish(fixture, "paywall", key: key)
        #expect(second.revision == 2)
        do {
            let host = try Self.host(fixture, trusting: [key.publicKey])
            #expect(try await host.prepare().bundle == second.bundle)
            await host.dispose()
        }
        try Self.serve(first.canonicalBytes, fixture)
        fixture.clock.advance(by: .seconds(3600))
        let restarted = try Self.host(fixture, trusting: [key.publicKey])
        let flow = try await restarted.resolveFlow()
        #expect(flow.revision == 2 && flow.stale)
        #expect(await Self.rejections(restarted) == ["rejected: rollback from revision 2 to 1"])
        await restarted.dispose()

        // A denial discards the scope's content; the floor stays, so the replay is still refused.
        fixture.origin.behaviour = .status(401, [:])
        fixture.clock.advance(by: .seconds(3600))
        let denied = try Self.host(fixture, trusting: [key.publicKey])
        await #expect(throws: HostError.self) { try await denied.prepare() }
        await denied.dispose()
        fixture.origin.behaviour = .serve
        fixture.clock.advance(by: .seconds(3600))
        let afterDenial = try Self.host(fixture, trusting: [key.publicKey])
        let error = await #expect(throws: HostError.self) { try await afterDenial.prepare() }
        #expect(error?.code == .rejected)
        #expect(error?.message.contains("rollback from revision 2 to 1") == true)
        await afterDenial.dispose()
    }

    @Test("An expired document is refused; with nothing cached the embedded default is shown, without one the error is typed")
    func anExpiredDocumentIsRefused() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        try Self.publish(fixture, "onboarding", key: key, validity: 60)
        fixture.clock.advance(by: .seconds(61))
        let host = try Self.host(fixture, trusting: [key.publicKey])
        let error = await #expect(throws: HostError.self) { try await host.prepare() }
        #expect(error?.code == .rejected)
        #expect(await Self.rejections(host).first?.hasPrefix("rejected: expired at ") == true)
        await host.dispose()

        fixture.clock.advance(by: .seconds(3600))
        let withDefault = try Self.host(fixture, trusting: [key.publicKey], embedded: try fixture.archive("legacy-prompt"))
        let flow = try await withDefault.resolveFlow()
        #expect(flow.source == .embedded)
        await withDefault.dispose()

        // Publishing again with the key renews the expiry (same revision): accepted.
        let renewed = try Self.publish(fixture, "onboarding", key: key)
        #expect(renewed.revision == 1)
        fixture.clock.advance(by: .seconds(3600))
        let again = try Self.host(fixture, trusting: [key.publicKey])
        #expect(try await again.prepare().source == .network)
        await again.dispose()
    }

    @Test("Rotation: both keys trusted, either signs; once the old key is removed, its documents are refused, stored ones too")
    func keyRotation() async throws {
        let fixture = try HostFixture()
        let old = try SigningKey.generate()
        let new = try SigningKey.generate()
        try Self.publish(fixture, "onboarding", key: old)
        let both = try Self.host(fixture, trusting: [old.publicKey, new.publicKey])
        #expect(try await both.prepare().source == .network)
        await both.dispose()

        // The app drops the old key; the stored document it signed is not served as fresh.
        let onlyNew = try Self.host(fixture, trusting: [new.publicKey])
        let error = await #expect(throws: HostError.self) { try await onlyNew.prepare() }
        #expect(error?.code == .rejected)
        #expect(
            await Self.rejections(onlyNew) == [
                "rejected: cached revision 1: unknown key \(old.publicKey.id); not used", "rejected: unknown key \(old.publicKey.id)",
            ])
        #expect(try await onlyNew.status().revision == nil)
        await onlyNew.dispose()

        fixture.clock.advance(by: .seconds(3600))
        let resigned = try Self.publish(fixture, "onboarding", key: new)
        #expect(resigned.signature?.keyID == new.publicKey.id)
        let accepted = try Self.host(fixture, trusting: [new.publicKey])
        #expect(try await accepted.prepare().revision == 1)
        await accepted.dispose()
    }
}

extension SignedDocumentTests {
    @Test("A stored document is trusted without a new verification only if this host verified it; a changed one is verified and refused")
    func storedDocumentsVerifiedHereOrAgain() async throws {
        let fixture = try HostFixture()
        let key = try SigningKey.generate()
        let signed = try Self.publish(fixture, "onboarding", key: key)
        // Accepted while no key was trusted: nothing was verified, so a launch trusting the key
        // verifies the stored document in full (it is genuine: served as fresh).
        do {
            let host = try fixture.host()
            try await host.prepare()
            await host.dispose()
        }
        let scope = fixture.configuration().scope
        let store = try HostStore(path: fixture.root + "/host/host.sqlite")
        #expect(try store.accepted(scope).verified == nil)
        fixture.origin.behaviour = .offline
        let trusting = try Self.host(fixture, trusting: [key.publicKey])
        #expect(try await trusting.resolveFlow().revision == 1)
        await trusting.dispose()

        // Revalidated with the key trusted: the digest of what was verified is kept.
        fixture.origin.behaviour = .serve
        fixture.clock.advance(by: .seconds(3600))
        let online = try Self.host(fixture, trusting: [key.publicKey])
        #expect(try await online.prepare().source == .revalidated)
        await online.dispose()
        #expect(try store.accepted(scope).verified == SHA256Hasher.hash(signed.canonicalBytes))

        // The stored document changed (its bundle, keeping the signature): no longer the one
        // verified here, so it is verified again, fails, and is not used.
        var changed = try #require(try store.record(scope).document)
        changed.bundle = SHA256Hasher.hash(Array("elsewhere".utf8))
        var record = try store.record(scope)
        record.document = changed
        try store.save(record, for: scope)
        fixture.origin.behaviour = .offline
        let relaunched = try Self.host(fixture, trusting: [key.publicKey])
        #expect(try await relaunched.status().revision == nil)
        await relaunched.dispose()
    }
}
