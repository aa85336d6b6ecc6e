import Foundation
import LarderFormat
import LarderPublish
import LarderTestSupport
import Testing

/// `larder publish … --trigger`: the origin's triggers document, versioned, each journey's
/// triggers replaced as a whole, an event moved when another journey takes it, signed on demand.
@Suite struct TriggerPublishTests {
    /// A scratch origin folder, removed when the test ends (its `src` folder).
    func scratch() throws -> SourceFolder { try SourceFolder() }

    func publish(_ origin: String, _ journey: String, _ events: [String], _ reentry: TriggerDocument.Reentry = .always, key: SigningKey? = nil)
        throws -> TriggerPublishReport
    {
        try OriginPublisher.publishTriggers(
            TriggerPublication(journey: journey, events: events, reentry: reentry, now: Date(timeIntervalSince1970: 1_800_000_000), signingKey: key),
            target: LocalFolderTarget(folder: origin))
    }

    @Test func revisionsFollowChangesOnly() throws {
        let folder = try scratch()
        let origin = folder.root
        let first = try publish(origin, "paywall", ["checkout_started", "paywall_tapped"], .once)
        #expect(first.changed && first.document.revision == 1 && first.document.triggers.count == 2)
        let again = try publish(origin, "paywall", ["paywall_tapped", "checkout_started"], .once)
        #expect(!again.changed && again.document.revision == 1, "the same triggers: nothing written")
        let onboarding = try publish(origin, "onboarding", ["app_opened"])
        #expect(onboarding.document.revision == 2 && onboarding.document.triggers.map(\.event) == ["app_opened", "checkout_started", "paywall_tapped"])
        // The paywall's triggers become exactly these; an event another journey had moves.
        let moved = try publish(origin, "paywall", ["app_opened"], .every(seconds: 3600))
        #expect(moved.document.revision == 3)
        #expect(moved.document.triggers == [.init(event: "app_opened", journey: "paywall", reentry: .every(seconds: 3600))])
        #expect(moved.moved.map(\.event) == ["app_opened"] && moved.moved.map(\.from) == ["onboarding"])
        let onDisk = try TriggerDocument(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: origin + "/triggers.json"))))
        #expect(onDisk == moved.document)
    }

    @Test func signingRenewsWithoutANewRevision() throws {
        let folder = try scratch()
        let origin = folder.root
        let key = try SigningKey.generate()
        let unsigned = try publish(origin, "paywall", ["checkout_started"])
        let signed = try publish(origin, "paywall", ["checkout_started"], key: key)
        #expect(signed.changed && signed.document.revision == unsigned.document.revision)
        let signature = try #require(signed.document.signature)
        #expect(key.publicKey.isValidSignature(signature.bytes, of: signed.document.signedBytes) && signed.document.expires != nil)
    }

    @Test func badInputChangesNothing() throws {
        let folder = try scratch()
        let origin = folder.root
        _ = try publish(origin, "paywall", ["checkout_started"])
        let before = try Data(contentsOf: URL(fileURLWithPath: origin + "/triggers.json"))
        let badEvent = #expect(throws: PublishError.self) { try publish(origin, "paywall", ["Checkout"]) }
        #expect(badEvent?.message.contains("'Checkout' is not an event name") == true)
        #expect(throws: PublishError.self) { try publish(origin, "../x", ["checkout_started"]) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: origin + "/triggers.json")) == before)
        try Data("{".utf8).write(to: URL(fileURLWithPath: origin + "/triggers.json"))
        let damaged = #expect(throws: PublishError.self) { try publish(origin, "paywall", ["checkout_started"]) }
        #expect(damaged?.message.contains("damaged") == true)
    }
}
