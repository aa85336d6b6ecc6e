/// A manifest together with its canonical bytes and the bundle digest they hash to, made once
/// where the manifest comes in (the packer encoding one, an archive's first entry, a fetched
/// `manifests/<digest>.json`) and carried as one value from there on: the cache installs it, the
/// publisher writes its bytes, nobody hashes or decodes the bytes again.
///
/// A value of this type holds what its initialisers checked: `digest` is the SHA-256 of
/// `bytes`, `bytes` are `manifest`'s canonical encoding.
public struct VerifiedManifest: Sendable, Equatable {
    /// The decoded manifest.
    public let manifest: Manifest
    /// Its canonical bytes (``Manifest/canonicalBytes``): what archives and origins hold.
    public let bytes: [UInt8]
    /// The bundle's identity: the SHA-256 of ``bytes``.
    public let digest: Digest

    /// Encodes and hashes a manifest made here (the packer's).
    public init(_ manifest: Manifest) {
        self.manifest = manifest
        bytes = manifest.canonicalBytes
        digest = SHA256Hasher.hash(bytes)
    }

    /// Decodes manifest bytes strictly (``Manifest/init(decoding:)``: only the canonical
    /// encoding of a valid manifest) and hashes them: an archive's manifest, whose digest
    /// is whatever it hashes to.
    /// - Throws: ``FormatError``, naming the field.
    public init(decoding bytes: [UInt8]) throws(FormatError) {
        manifest = try Manifest(decoding: bytes)
        self.bytes = bytes
        digest = SHA256Hasher.hash(bytes)
    }

    /// Checks that untrusted bytes are the manifest of the bundle `expected` names, then decodes
    /// them strictly: a manifest fetched by its digest. The hash is checked first, so bytes of
    /// another bundle cost no decoding.
    /// - Throws: ``FormatError`` with ``FormatError/Code/limitExceeded`` past
    ///   ``Manifest/maximumBytes``, ``FormatError/Code/digestMismatch`` when the bytes hash to
    ///   another digest, or what ``Manifest/init(decoding:)`` throws.
    public init(decoding bytes: [UInt8], expecting expected: Digest) throws(FormatError) {
        guard bytes.count <= Manifest.maximumBytes else {
            throw FormatError(.limitExceeded, "the manifest has \(bytes.count) bytes; at most \(Manifest.maximumBytes) are accepted")
        }
        let digest = SHA256Hasher.hash(bytes)
        guard digest == expected else {
            throw FormatError(.digestMismatch, "the manifest hashes to \(digest), not to the bundle digest \(expected) it was asked for")
        }
        manifest = try Manifest(decoding: bytes)
        self.bytes = bytes
        self.digest = digest
    }

    /// The same bundle: the digest names the bytes, which name the manifest.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.digest == rhs.digest }
}
