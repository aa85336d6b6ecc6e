/// Which app events present which journey (an app calls `trigger(_:)` with an event, and the
/// journey mapped to it appears), and how often: the origin's `triggers.json`, a
/// mutable document beside the journeys', versioned, revalidated with ETags and optionally
/// signed like them (``SignedDocument``).
///
/// ```json
/// {"published": "2027-01-15T08:00:00Z", "revision": 3,
///  "triggers": [{"event": "checkout_started", "journey": "paywall", "reentry": "once"}]}
/// ```
///
/// An event presents one journey; triggers are sorted by event, so the canonical bytes of the
/// same mapping are the same.
public struct TriggerDocument: SignedDocument {
    /// The largest document accepted, in bytes.
    public static let maximumBytes = 1 << 20
    /// The most triggers a document holds.
    public static let maximumTriggers = 10_000
    /// The document's path relative to the origin.
    public static let path = "triggers.json"

    /// How often a journey a trigger presents may appear to one person.
    public enum Reentry: Sendable, Hashable, CustomStringConvertible {
        /// Once per person (until a logout forgets it).
        case once
        /// Every time the event fires.
        case always
        /// At most once per this many seconds (1 or more).
        case every(seconds: Int64)

        /// `once`, `always` or `every <duration>`.
        public var description: String {
            switch self {
            case .once: "once"
            case .always: "always"
            case .every(let seconds): "every " + DurationText.describe(seconds: Double(seconds))
            }
        }

        var json: JSONValue {
            switch self {
            case .once: .string("once")
            case .always: .string("always")
            case .every(let seconds): .int(seconds)
            }
        }

        init(json value: JSONValue, field: String) throws(FormatError) {
            switch value {
            case .string("once"): self = .once
            case .string("always"): self = .always
            case .int(let seconds) where seconds > 0: self = .every(seconds: seconds)
            default: throw FormatError(.invalidManifest, "must be \"once\", \"always\" or a positive number of seconds", field: field)
            }
        }
    }

    /// One event and the journey it presents.
    public struct Trigger: Sendable, Hashable {
        /// An app event name (``EventName``).
        public var event: String
        /// The journey it presents.
        public var journey: String
        public var reentry: Reentry

        /// - Parameters:
        ///   - event: an app event name (``EventName``).
        ///   - journey: the journey it presents.
        ///   - reentry: how often one person may see it.
        public init(event: String, journey: String, reentry: Reentry) {
            self.event = event
            self.journey = journey
            self.reentry = reentry
        }
    }

    /// Increases by one each time the mapping changes.
    public var revision: Int64
    /// When this revision was published, ISO 8601 in UTC.
    public var published: String
    /// When a device stops accepting this document (signed documents carry it).
    public var expires: String?
    /// Sorted by event, one per event.
    public private(set) var triggers: [Trigger]
    public var signature: JourneyDocument.Signature?

    /// - Parameters:
    ///   - triggers: one per event (a later one for the same event wins); kept sorted
    ///     by event.
    ///   - revision: the document's revision; every publication takes a higher one.
    ///   - published: when it was published, an ISO 8601 date.
    ///   - expires: when devices stop accepting it, an ISO 8601 date; nil for no expiry.
    ///   - signature: the publisher's signature, nil for an unsigned document.
    public init(revision: Int64, published: String, triggers: [Trigger], expires: String? = nil, signature: JourneyDocument.Signature? = nil) {
        self.revision = revision
        self.published = published
        self.expires = expires
        self.signature = signature
        var byEvent: [String: Trigger] = [:]
        for trigger in triggers { byEvent[trigger.event] = trigger }
        self.triggers = byEvent.values.sorted { Array($0.event.utf8).lexicographicallyPrecedes(Array($1.event.utf8)) }
    }

    /// The trigger of `event`, nil when no journey is presented for it.
    /// - Complexity: O(log n).
    public func trigger(for event: String) -> Trigger? {
        let key = Array(event.utf8)
        var low = 0
        var high = triggers.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = Array(triggers[middle].event.utf8)
            if candidate == key { return triggers[middle] }
            if candidate.lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// What a signature covers: every field but the signature.
    public var signedBytes: [UInt8] { JSONValue.object(members(signed: false)).canonicalBytes }

    /// Canonical JSON bytes, with the signature when there is one.
    public var canonicalBytes: [UInt8] { JSONValue.object(members(signed: true)).canonicalBytes }

    private func members(signed: Bool) -> [String: JSONValue] {
        var members: [String: JSONValue] = [
            "revision": .int(revision), "published": .string(published),
            "triggers": .array(triggers.map { .object(["event": .string($0.event), "journey": .string($0.journey), "reentry": $0.reentry.json]) }),
        ]
        if let expires { members["expires"] = .string(expires) }
        if signed, let signature {
            members["signature"] = .object(["key": .string(signature.keyID), "ed25519": .string(Base64.encode(signature.bytes))])
        }
        return members
    }

    /// Signs the document with `key`, replacing any signature it had.
    public mutating func sign(with key: SigningKey) throws(FormatError) {
        signature = JourneyDocument.Signature(keyID: key.publicKey.id, bytes: try key.sign(signedBytes))
    }

    private static let fields: Set<String> = ["revision", "published", "expires", "triggers", "signature"]

    /// Parses a triggers document strictly: every field known and typed, every event a valid
    /// event name (``EventName``) given once, every journey id non-empty.
    /// - Throws: ``FormatError`` naming the field (``FormatError/Code/invalidJSON``,
    ///   ``FormatError/Code/invalidManifest`` or ``FormatError/Code/limitExceeded``).
    public init(decoding bytes: [UInt8]) throws(FormatError) {
        guard bytes.count <= Self.maximumBytes else {
            throw FormatError(.limitExceeded, "a triggers document has at most \(Self.maximumBytes) bytes; this one has \(bytes.count)")
        }
        guard case .object(let members) = try JSONValue.parse(bytes, maximumValues: 8 * Self.maximumTriggers + 64) else {
            throw FormatError(.invalidManifest, "a triggers document must be a JSON object")
        }
        if let unknown = members.keys.first(where: { !Self.fields.contains($0) }) {
            throw FormatError(.invalidManifest, "unknown field", field: unknown)
        }
        guard case .int(let revision)? = members["revision"], revision > 0 else {
            throw FormatError(.invalidManifest, "required: a positive integer", field: "revision")
        }
        guard case .string(let published)? = members["published"] else { throw FormatError(.invalidManifest, "required: a string", field: "published") }
        guard case .array(let list)? = members["triggers"] else { throw FormatError(.invalidManifest, "required: an array", field: "triggers") }
        guard list.count <= Self.maximumTriggers else {
            throw FormatError(.limitExceeded, "at most \(Self.maximumTriggers) triggers; this document has \(list.count)", field: "triggers")
        }
        var triggers: [Trigger] = []
        var events = Set<String>()
        for (index, value) in list.enumerated() {
            let field = "triggers[\(index)]"
            guard case .object(let entry) = value, entry.count == 3, case .string(let event)? = entry["event"],
                case .string(let journey)? = entry["journey"], let reentry = entry["reentry"]
            else { throw FormatError(.invalidManifest, "must be {\"event\", \"journey\", \"reentry\"}", field: field) }
            guard EventName.isValid(event) else { throw FormatError(.invalidManifest, EventName.rule(for: event), field: field + ".event") }
            guard events.insert(event).inserted else { throw FormatError(.invalidManifest, "event '\(event)' is given twice", field: field + ".event") }
            guard !journey.isEmpty, journey.utf8.count <= 128 else { throw FormatError(.invalidManifest, "must be a journey id", field: field + ".journey") }
            triggers.append(Trigger(event: event, journey: journey, reentry: try Reentry(json: reentry, field: field + ".reentry")))
        }
        var expires: String?
        if let value = members["expires"] {
            guard case .string(let text) = value else { throw FormatError(.invalidManifest, "must be a string", field: "expires") }
            expires = text
        }
        let signature = try members["signature"].map { value throws(FormatError) in try JourneyDocument.signature(value) }
        self.init(revision: revision, published: published, triggers: triggers, expires: expires, signature: signature)
    }
}
