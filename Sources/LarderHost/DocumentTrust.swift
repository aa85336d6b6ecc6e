import Foundation
import LarderFormat

/// Whether a host may act on a journey document, when it trusts publisher keys.
///
/// With no key trusted every well-formed document for the journey is accepted (origins whose
/// apps trust no key). With any key trusted, a document is accepted only if it is signed by
/// one of them, names the journey, has not expired, and does not go back below the highest
/// revision this scope already accepted (a replayed older document). The embedded default
/// ships with the app and is trusted without a document.
struct DocumentTrust: Sendable {
    /// Why a document was refused; its ``description`` is the timeline's wording.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case unsigned
        case unknownKey(String)
        case badSignature
        case expired(String)
        case noExpiry
        case rollback(from: Int64, to: Int64)

        var description: String {
            switch self {
            case .unsigned: "not signed"
            case .unknownKey(let id): "unknown key \(id.prefix(32))"
            case .badSignature: "bad signature"
            case .expired(let date): "expired at \(date.prefix(40))"
            case .noExpiry: "signed without an expiry date"
            case .rollback(let from, let to): "rollback from revision \(from) to \(to)"
            }
        }
    }

    let keys: [PublicKey]

    /// Whether documents are checked at all.
    var isEnforced: Bool { !keys.isEmpty }

    /// Whether `document` is signed by a trusted key, with a valid signature: what a document
    /// kept from an earlier launch must still satisfy (keys may have been rotated since).
    func signatureRefusal(of document: JourneyDocument) -> Refusal? {
        guard isEnforced else { return nil }
        guard let signature = document.signature else { return .unsigned }
        guard let key = keys.first(where: { $0.id == signature.keyID }) else { return .unknownKey(signature.keyID) }
        guard key.isValidSignature(signature.bytes, of: document.signedBytes) else { return .badSignature }
        return nil
    }

    /// Why a freshly fetched `document` may not be accepted, or nil.
    /// - Parameters:
    ///   - now: the host clock's time.
    ///   - highestAccepted: the highest revision this scope accepted before, if any.
    func refusal(of document: JourneyDocument, now: Date, highestAccepted: Int64?) -> Refusal? {
        guard isEnforced else { return nil }
        if let refusal = signatureRefusal(of: document) { return refusal }
        guard let expires = document.expires else { return .noExpiry }
        guard let expiry = Self.date(expires), now < expiry else { return .expired(expires) }
        if let highestAccepted, document.revision < highestAccepted {
            return .rollback(from: highestAccepted, to: document.revision)
        }
        return nil
    }

    /// An ISO 8601 date in UTC as `larder publish` writes it, nil when it is not one.
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
