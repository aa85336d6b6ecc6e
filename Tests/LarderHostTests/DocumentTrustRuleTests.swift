import Foundation
import LarderFormat
@testable import LarderHost
@testable import LarderPack
@testable import LarderPublish
import Testing

/// The trust rule as one pure decision (``DocumentTrust/refusal(of:now:highestAccepted:signatureVerified:)``):
/// the same for a document just fetched and for one stored earlier, at every use.
@Suite struct DocumentTrustRuleTests {
    static let signer = try! SigningKey.generate()
    static let stranger = try! SigningKey.generate()
    static let published = DocumentTrust.date("2027-01-15T08:00:00Z")!

    /// Revision 5, expiring a week after it was published, signed by ``signer``.
    static func document(_ change: (inout JourneyDocument) -> Void = { _ in }, signedBy key: SigningKey? = signer) -> JourneyDocument {
        var document = JourneyDocument(
            journey: "onboarding", revision: 5, bundle: SHA256Hasher.hash(Array("bundle".utf8)), refresh: 600,
            published: "2027-01-15T08:00:00Z", expires: "2027-01-22T08:00:00Z")
        change(&document)
        if let key { try! document.sign(with: key) }
        return document
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var document: JourneyDocument
        /// Seconds after ``published``.
        var at: Int
        var floor: Int64? = 5
        var signatureVerified = false
        var keys: [PublicKey] = [DocumentTrustRuleTests.signer.publicKey]
        var expected: DocumentTrust.Refusal?
        var testDescription: String { name }
    }

    static let week = 7 * 86_400

    @Test(arguments: [
        Case(name: "valid, a day after publishing", document: document(), at: 86_400, expected: nil),
        Case(name: "one second before its expiry", document: document(), at: week - 1, expected: nil),
        Case(name: "at its expiry", document: document(), at: week, expected: .expired("2027-01-22T08:00:00Z")),
        Case(name: "a month after", document: document(), at: 30 * 86_400, expected: .expired("2027-01-22T08:00:00Z")),
        Case(name: "an expiry that is not a date", document: document { $0.expires = "tomorrow" }, at: 0, expected: .malformedExpiry("tomorrow")),
        Case(name: "an expiry without a time", document: document { $0.expires = "2027-01-22" }, at: 0, expected: .malformedExpiry("2027-01-22")),
        Case(
            name: "an expiry with an offset", document: document { $0.expires = "2027-01-22T09:00:00+01:00" }, at: 0,
            expected: .malformedExpiry("2027-01-22T09:00:00+01:00")),
        Case(
            name: "an expiry on February 30", document: document { $0.expires = "2027-02-30T08:00:00Z" }, at: 0,
            expected: .malformedExpiry("2027-02-30T08:00:00Z")),
        Case(
            name: "an expiry with fractions of a second", document: document { $0.expires = "2027-01-22T08:00:00.5Z" }, at: 0,
            expected: .malformedExpiry("2027-01-22T08:00:00.5Z")),
        Case(name: "no expiry", document: document { $0.expires = nil }, at: 0, expected: .noExpiry),
        Case(name: "below the floor", document: document(), at: 0, floor: 6, expected: .rollback(from: 6, to: 5)),
        Case(name: "at the floor", document: document(), at: 0, floor: 5, expected: nil),
        Case(name: "no floor yet", document: document(), at: 0, floor: nil, expected: nil),
        Case(name: "unsigned", document: document(signedBy: nil), at: 0, expected: .unsigned),
        Case(name: "signed by another key", document: document(signedBy: stranger), at: 0, expected: .unknownKey(stranger.publicKey.id)),
        Case(
            name: "changed after signing", document: { var changed = document(); changed.revision = 9; return changed }(), at: 0,
            floor: nil, expected: .badSignature),
        Case(
            name: "verified here before: not verified again", document: { var changed = document(); changed.revision = 9; return changed }(),
            at: 0, floor: nil, signatureVerified: true, expected: nil),
        Case(
            name: "verified here before, its key no longer trusted", document: document(), at: 0, signatureVerified: true,
            keys: [stranger.publicKey], expected: .unknownKey(signer.publicKey.id)),
        Case(name: "verified here before, since expired", document: document(), at: week, signatureVerified: true, expected: .expired("2027-01-22T08:00:00Z")),
        Case(name: "no key trusted: nothing is checked", document: document(signedBy: nil), at: 30 * 86_400, keys: [], expected: nil),
    ])
    func decides(_ test: Case) {
        let trust = DocumentTrust(keys: test.keys)
        let now = Self.published.addingTimeInterval(TimeInterval(test.at))
        #expect(
            trust.refusal(of: test.document, now: now, highestAccepted: test.floor, signatureVerified: test.signatureVerified) == test.expected)
    }

    @Test func datesAreReadExactlyAsThePublisherWritesThem() throws {
        let now = Date(timeIntervalSince1970: 1_800_604_800)
        #expect(DocumentTrust.date(OriginPublisher.iso(now)) == now)
        #expect(DocumentTrust.date("2027-01-22T08:00:00Z") == now)
        for text in [" 2027-01-22T08:00:00Z", "2027-01-22T08:00:00Z ", "2027-01-22T25:00:00Z", "2027-01-22T08:00:60Z", "2027-01-22t08:00:00z"] {
            #expect(DocumentTrust.date(text) == nil, "\(text)")
        }
    }

    @Test func eachRefusalSaysWhatIsWrong() {
        #expect(DocumentTrust.Refusal.malformedExpiry("tomorrow").description == "its expiry 'tomorrow' is not an ISO 8601 date and time in UTC")
        #expect(DocumentTrust.Refusal.expired("2027-01-22T08:00:00Z").description == "expired at 2027-01-22T08:00:00Z")
    }
}
