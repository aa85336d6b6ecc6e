/// A mutable origin document a publisher may sign: a journey's configuration
/// (``JourneyDocument``) or the origin's triggers (``TriggerDocument``). A device that trusts
/// publisher keys holds both to the same checks: signed by a trusted key, not expired, and not
/// below the highest revision it accepted.
public protocol SignedDocument: Sendable, Equatable {
    /// Increases with each new version of the document.
    var revision: Int64 { get }
    /// When a device stops accepting it, ISO 8601 in UTC; signed documents carry it.
    var expires: String? { get }
    /// The publisher's signature, nil for an unsigned document.
    var signature: JourneyDocument.Signature? { get }
    /// What the signature covers: the canonical JSON of every field but the signature.
    var signedBytes: [UInt8] { get }
    /// Canonical JSON bytes, with the signature when there is one.
    var canonicalBytes: [UInt8] { get }
}

extension JourneyDocument: SignedDocument {}
