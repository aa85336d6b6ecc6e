/// A journey's configuration document, the only mutable file of an origin.
public struct JourneyDocument: Sendable, Equatable {
    /// The largest document accepted, in bytes (a real one has a few hundred).
    public static let maximumBytes = 1 << 20


    public var journey: String
    /// Increases by one each time the journey points at another bundle or refresh interval.
    public var revision: Int64
    public var bundle: Digest
    /// Seconds; clients clamp it to 10–30 minutes.
    public var refresh: Int64
    /// When this revision was published, ISO 8601 in UTC.
    public var published: String

    public init(journey: String, revision: Int64, bundle: Digest, refresh: Int64, published: String) {
        self.journey = journey
        self.revision = revision
        self.bundle = bundle
        self.refresh = refresh
        self.published = published
    }

    /// Canonical JSON bytes.
    public var canonicalBytes: [UInt8] {
        JSONValue.object([
            "journey": .string(journey), "revision": .int(revision), "bundle": .string(bundle.description),
            "refresh": .int(refresh), "published": .string(published),
        ]).canonicalBytes
    }

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
        if let unknown = members.keys.first(where: { !["journey", "revision", "bundle", "refresh", "published"].contains($0) }) {
            throw FormatError(.invalidManifest, "unknown field", field: unknown)
        }
        self.init(journey: journey, revision: revision, bundle: try Digest(parsing: bundle), refresh: refresh, published: published)
    }
}
