import Foundation
import LarderFormat

/// Whether a host may act on a journey document, when it trusts publisher keys.
///
/// With no key trusted every well-formed document for the journey is accepted (origins whose
/// apps trust no key). With any key trusted, a document is accepted only if it is signed by
/// one of them, has not expired, and does not go back below the highest revision this scope
/// already accepted (a replayed older document); the configuration client refuses one naming
/// another journey. The same checks hold for a document just fetched and for one stored
/// earlier, at every use: neither a 304 nor a fresh window renews a document past its expiry.
/// The embedded default ships with the app and is trusted without a document.
struct DocumentTrust: Sendable {
    /// Why a document was refused; its ``description`` is the timeline's wording.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case unsigned
        case unknownKey(String)
        case badSignature
        case expired(String)
        case malformedExpiry(String)
        case noExpiry
        case rollback(from: Int64, to: Int64)

        var description: String {
            switch self {
            case .unsigned: "not signed"
            case .unknownKey(let id): "unknown key \(id.prefix(32))"
            case .badSignature: "bad signature"
            case .expired(let date): "expired at \(date.prefix(40))"
            case .malformedExpiry(let text): "its expiry '\(text.prefix(40))' is not an ISO 8601 date and time in UTC"
            case .noExpiry: "signed without an expiry date"
            case .rollback(let from, let to): "rollback from revision \(from) to \(to)"
            }
        }
    }

    let keys: [PublicKey]

    /// Whether documents are checked at all.
    var isEnforced: Bool { !keys.isEmpty }

    /// Why `document` may not be acted on at `now`, or nil.
    /// - Parameters:
    ///   - now: the host clock's time.
    ///   - highestAccepted: the highest revision this scope accepted before, if any; nil to
    ///     skip the rollback check (an older revision kept for the renderer gate).
    ///   - signatureVerified: true when this host verified these very bytes' signature before:
    ///     its key must still be trusted, and the signature is not verified again.
    /// - Complexity: one Ed25519 verification unless `signatureVerified`.
    func refusal(
        of document: some SignedDocument, now: Date, highestAccepted: Int64?, signatureVerified: Bool = false
    ) -> Refusal? {
        guard isEnforced else { return nil }
        guard let signature = document.signature else { return .unsigned }
        guard let key = keys.first(where: { $0.id == signature.keyID }) else { return .unknownKey(signature.keyID) }
        if !signatureVerified, !key.isValidSignature(signature.bytes, of: document.signedBytes) { return .badSignature }
        guard let expires = document.expires else { return .noExpiry }
        guard let expiry = Self.date(expires) else { return .malformedExpiry(expires) }
        guard now < expiry else { return .expired(expires) }
        if let highestAccepted, document.revision < highestAccepted {
            return .rollback(from: highestAccepted, to: document.revision)
        }
        return nil
    }

    /// An ISO 8601 date and time in UTC exactly as `larder publish` writes it
    /// (`2027-01-22T08:00:00Z`), nil for anything else (another form, an offset, February 30).
    ///
    /// Read at every use of a stored document, so with `Date.ISO8601FormatStyle`: about 5 µs,
    /// where making an `ISO8601DateFormatter` and parsing with it takes about 1 ms here.
    static func date(_ text: String) -> Date? {
        let style = Date.ISO8601FormatStyle()
        guard let date = try? style.parse(text), style.format(date) == text else { return nil }
        return date
    }
}
