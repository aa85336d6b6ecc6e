/// A journey's configuration document, the only mutable file of an origin.
public struct JourneyDocument: Sendable, Equatable {
    /// The largest document accepted, in bytes (a real one has a few hundred).
    public static let maximumBytes = 1 << 20

    /// Who signed a document: the key's ``PublicKey/id`` and the Ed25519 signature of
    /// ``signedBytes``.
    public struct Signature: Sendable, Equatable {
        public var keyID: String
        public var bytes: [UInt8]

        public init(keyID: String, bytes: [UInt8]) {
            self.keyID = keyID
            self.bytes = bytes
        }
    }

    public var journey: String
    /// Increases by one each time the journey points at another bundle or refresh interval.
    public var revision: Int64
    public var bundle: Digest
    /// Seconds; clients clamp it to 10–30 minutes.
    public var refresh: Int64
    /// When this revision was published, ISO 8601 in UTC.
    public var published: String
    /// When a device stops accepting this document, ISO 8601 in UTC; signed documents carry
    /// it (a replayed old document goes stale), unsigned ones need not.
    public var expires: String?
    /// The publisher's signature, nil for an unsigned document.
    public var signature: Signature?

    public init(
        journey: String, revision: Int64, bundle: Digest, refresh: Int64, published: String, expires: String? = nil,
        signature: Signature? = nil
    ) {
        self.journey = journey
        self.revision = revision
        self.bundle = bundle
        self.refresh = refresh
        self.published = published
        self.expires = expires
        self.signature = signature
    }

    /// What a signature covers: the canonical JSON of every field but the signature, that
    /// is, everything a device acts on.
    public var signedBytes: [UInt8] { JSONValue.object(members(signed: false)).canonicalBytes }

    /// Canonical JSON bytes, with the signature when there is one.
    public var canonicalBytes: [UInt8] { JSONValue.object(members(signed: true)).canonicalBytes }

    private func members(signed: Bool) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "journey": .string(journey), "revision": .int(revision), "bundle": .string(bundle.description),
            "refresh": .int(refresh), "published": .string(published),
        ]
        if let expires { members["expires"] = .string(expires) }
        if signed, let signature {
            members["signature"] = .object(["key": .string(signature.keyID), "ed25519": .string(Base64.encode(signature.bytes))])
        }
        return members
    }

    /// Signs the document with `key`, replacing any signature it had.
    public mutating func sign(with key: SigningKey) throws(FormatError) {
        signature = Signature(keyID: key.publicKey.id, bytes: try key.sign(signedBytes))
    }

    private static let fields: Set<String> = ["journey", "revision", "bundle", "refresh", "published", "expires", "signature"]

    /// Parses a journey document strictly.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/invalidJSON`` or
    ///   ``FormatError/Code/invalidManifest`` naming the field.
    public init(decoding bytes: [UInt8]) throws(FormatError) {
        guard bytes.count <= Self.maximumBytes else {
            throw FormatError(.limitExceeded, "a journey document has at most \(Self.maximumBytes) bytes; this one has \(bytes.count)")
        }
        guard case .object(let members) = try JSONValue.parse(bytes, maximumValues: 64) else {
            throw FormatError(.invalidManifest, "a journey document must be a JSON object")
        }
        func field(_ name: String) throws(FormatError) -> JSONValue {
            guard let value = members[name] else { throw FormatError(.invalidManifest, "required field is missing", field: name) }
            return value
        }
        guard case .string(let journey) = try field("journey"), case .int(let revision) = try field("revision"),
            case .string(let bundle) = try field("bundle"), case .int(let refresh) = try field("refresh"),
            case .string(let published) = try field("published")
        else { throw FormatError(.invalidManifest, "a field has the wrong type (journey, revision, bundle, refresh, published)") }
        if let unknown = members.keys.first(where: { !Self.fields.contains($0) }) {
            throw FormatError(.invalidManifest, "unknown field", field: unknown)
        }
        var expires: String?
        if let value = members["expires"] {
            guard case .string(let text) = value else { throw FormatError(.invalidManifest, "must be a string", field: "expires") }
            expires = text
        }
        self.init(
            journey: journey, revision: revision, bundle: try Digest(parsing: bundle), refresh: refresh, published: published,
            expires: expires, signature: try members["signature"].map { value throws(FormatError) in try Self.signature(value) })
    }

    private static func signature(_ value: JSONValue) throws(FormatError) -> Signature {
        guard case .object(let members) = value, members.count == 2, case .string(let keyID)? = members["key"],
            case .string(let text)? = members["ed25519"]
        else { throw FormatError(.invalidManifest, "must be {\"key\": <key id>, \"ed25519\": <base64>}", field: "signature") }
        guard let bytes = Base64.decodeCanonical(text), bytes.count == 64 else {
            throw FormatError(.invalidManifest, "not the canonical base64 of 64 bytes", field: "signature.ed25519")
        }
        return Signature(keyID: keyID, bytes: bytes)
    }
}
