import LarderFormat

/// An error that a ``TransportError`` may carry as its ``TransportError/cause`` and that may name
/// a bundle or object: described without the digest the transport error names already, so the
/// digest is said once.
public protocol DigestNamingError: Error, Sendable {
    /// The description, leaving out the digest when it is `digest`.
    func description(omitting digest: Digest?) -> String
}
