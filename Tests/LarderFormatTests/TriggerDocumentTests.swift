import Foundation
import LarderFormat
import Testing

/// The origin's triggers document (`triggers.json`): canonical, strict, signable like a
/// journey's [seed 001: event triggers with reentry policies].
@Suite struct TriggerDocumentTests {
    static let document = TriggerDocument(
        revision: 3, published: "2027-01-15T08:00:00Z",
        triggers: [
            .init(event: "paywall_tapped", journey: "paywall", reentry: .every(seconds: 86_400)),
            .init(event: "checkout_started", journey: "paywall", reentry: .once),
            .init(event: "app:opened", journey: "onboarding", reentry: .always),
        ])

    @Test func canonicalSortedAndReadBack() throws {
        let text = String(decoding: Self.document.canonicalBytes, as: UTF8.self)
        #expect(
            text
                == #"{"published":"2027-01-15T08:00:00Z","revision":3,"triggers":[{"event":"app:opened","journey":"onboarding","reentry":"always"},{"event":"checkout_started","journey":"paywall","reentry":"once"},{"event":"paywall_tapped","journey":"paywall","reentry":86400}]}"#
        )
        let read = try TriggerDocument(decoding: Self.document.canonicalBytes)
        #expect(read == Self.document)
        #expect(read.trigger(for: "checkout_started")?.reentry == .once)
        #expect(read.trigger(for: "paywall_tapped")?.reentry == .every(seconds: 86_400))
        #expect(read.trigger(for: "app_opened") == nil)
        #expect(TriggerDocument.Reentry.every(seconds: 86_400).description == "every 24 h")
        #expect(TriggerDocument.Reentry.once.description == "once")
    }

    @Test func signedLikeAJourneyDocument() throws {
        let key = try SigningKey.generate()
        var document = Self.document
        document.expires = "2027-01-22T08:00:00Z"
        try document.sign(with: key)
        let signature = try #require(document.signature)
        #expect(key.publicKey.isValidSignature(signature.bytes, of: document.signedBytes))
        let read = try TriggerDocument(decoding: document.canonicalBytes)
        #expect(read.signature == signature && read.expires == document.expires)
        var changed = read
        changed.revision += 1
        #expect(!key.publicKey.isValidSignature(signature.bytes, of: changed.signedBytes))
    }

    @Test(arguments: [
        (#"[]"#, "a triggers document must be a JSON object"),
        (#"{"revision":1,"published":"x","triggers":[],"extra":1}"#, "extra"),
        (#"{"revision":0,"published":"x","triggers":[]}"#, "revision"),
        (#"{"revision":1,"triggers":[]}"#, "published"),
        (#"{"revision":1,"published":"x","triggers":{}}"#, "triggers"),
        (#"{"revision":1,"published":"x","triggers":[{"event":"Bad Name","journey":"j","reentry":"once"}]}"#, "'Bad Name' is not an event name"),
        (#"{"revision":1,"published":"x","triggers":[{"event":"a","journey":"j","reentry":"sometimes"}]}"#, "triggers[0].reentry"),
        (#"{"revision":1,"published":"x","triggers":[{"event":"a","journey":"j","reentry":0}]}"#, "triggers[0].reentry"),
        (#"{"revision":1,"published":"x","triggers":[{"event":"a","journey":"","reentry":"once"}]}"#, "triggers[0].journey"),
        (#"{"revision":1,"published":"x","triggers":[{"event":"a","journey":"j","reentry":"once"},{"event":"a","journey":"k","reentry":"once"}]}"#, "given twice"),
        (#"{"revision":1,"published":"x","triggers":[{"event":"a","journey":"j"}]}"#, "triggers[0]"),
    ])
    func malformedDocumentsAreRefusedNamingTheField(_ text: String, _ named: String) {
        let error = #expect(throws: FormatError.self) { try TriggerDocument(decoding: Array(text.utf8)) }
        #expect(error.map { "\($0)".contains(named) } == true, "\(String(describing: error))")
    }

    @Test func eventNames() {
        for good in ["a", "checkout_started", "paywall:closed", "a1_b2", String(repeating: "a", count: 100)] { #expect(EventName.isValid(good), "\(good)") }
        for bad in ["", "A", "1a", "_a", "a-b", "a b", "é", String(repeating: "a", count: 101)] { #expect(!EventName.isValid(bad), "\(bad)") }
    }
}
