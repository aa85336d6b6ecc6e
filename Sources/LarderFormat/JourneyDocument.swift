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

    /// A staged rollout: ``JourneyDocument/bundle`` goes to `percent` % of identities,
    /// ``previous`` to the rest. Who is in is a stable hash of the journey and the identity's id
    /// (``includes(journey:id:)``): the same person gets the same bundle on every launch and
    /// device, and raising the percentage only adds people.
    public struct Rollout: Sendable, Equatable {
        /// 1–99 (100 is a finished rollout: no rollout at all).
        public var percent: Int
        /// The bundle everyone outside the rollout keeps.
        public var previous: Digest

        public init(percent: Int, previous: Digest) {
            self.percent = percent
            self.previous = previous
        }

        /// Whether the identity `id` (an app's user id, or an anonymous visitor id) is among
        /// the `percent` % who get the new bundle of `journey`: the first 8 bytes of
        /// SHA-256("<journey>\n<id>"), modulo 100, below `percent`.
        public func includes(journey: String, id: String) -> Bool {
            Self.bucket(journey: journey, id: id) < percent
        }

        /// 0–99, uniform over ids.
        public static func bucket(journey: String, id: String) -> Int {
            let digest = SHA256Hasher.hash(Array("\(journey)\n\(id)".utf8)).bytes
            let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Int(value % 100)
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
    /// A staged rollout of ``bundle``, nil when everyone gets it.
    public var rollout: Rollout?
    /// The publisher's signature, nil for an unsigned document.
    public var signature: Signature?

    public init(
        journey: String, revision: Int64, bundle: Digest, refresh: Int64, published: String, expires: String? = nil,
        rollout: Rollout? = nil, signature: Signature? = nil
    ) {
        self.journey = journey
        self.revision = revision
        self.bundle = bundle
        self.refresh = refresh
        self.published = published
        self.expires = expires
        self.rollout = rollout
        self.signature = signature
    }

    /// The bundle the identity `id` gets: ``bundle``, or during a rollout it or the previous
    /// one.
    public func bundle(for id: String) -> Digest {
        guard let rollout else { return bundle }
        return rollout.includes(journey: journey, id: id) ? bundle : rollout.previous
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
        if let rollout { members["rollout"] = .object(["percent": .int(Int64(rollout.percent)), "previous": .string(rollout.previous.description)]) }
        if signed, let signature {
            members["signature"] = .object(["key": .string(signature.keyID), "ed25519": .string(Base64.encode(signature.bytes))])
        }
        return members
    }

    /// Signs the document with `key`, replacing any signature it had.
    public mutating func sign(with key: SigningKey) throws(FormatError) {
        signature = Signature(keyID: key.publicKey.id, bytes: try key.sign(signedBytes))
    }

    private static let fields: Set<String> = ["journey", "revision", "bundle", "refresh", "published", "expires", "rollout", "signature"]

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
            expires: expires, rollout: try members["rollout"].map { value throws(FormatError) in try Self.rollout(value) },
            signature: try members["signature"].map { value throws(FormatError) in try Self.signature(value) })
    }

    private static func rollout(_ value: JSONValue) throws(FormatError) -> Rollout {
        guard case .object(let members) = value, members.count == 2, case .int(let percent)? = members["percent"],
            case .string(let previous)? = members["previous"]
        else { throw FormatError(.invalidManifest, "must be {\"percent\": <1-99>, \"previous\": <bundle digest>}", field: "rollout") }
        guard (1...99).contains(percent) else { throw FormatError(.invalidManifest, "must be 1 to 99", field: "rollout.percent") }
        return Rollout(percent: Int(percent), previous: try Digest(parsing: previous))
    }

    static func signature(_ value: JSONValue) throws(FormatError) -> Signature {
        guard case .object(let members) = value, members.count == 2, case .string(let keyID)? = members["key"],
            case .string(let text)? = members["ed25519"]
        else { throw FormatError(.invalidManifest, "must be {\"key\": <key id>, \"ed25519\": <base64>}", field: "signature") }
        guard let bytes = Base64.decodeCanonical(text), bytes.count == 64 else {
            throw FormatError(.invalidManifest, "not the canonical base64 of 64 bytes", field: "signature.ed25519")
        }
        if let defect = Ed25519Encoding.signatureDefect(bytes) {
            throw FormatError(.invalidManifest, "not a canonical Ed25519 signature: \(defect)", field: "signature.ed25519")
        }
        return Signature(keyID: keyID, bytes: bytes)
    }
}
