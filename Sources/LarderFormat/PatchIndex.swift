/// The patches published for one bundle: `bundles/<bundle hex>/patches.json` on the origin,
/// immutable (written once, before the manifest and any document that makes the bundle
/// reachable), found by the new bundle's digest.
///
/// ```json
/// {"format":"zstd","patches":[{"from":"sha256:…","fromSize":63012,"patch":"sha256:…",
///  "size":43,"to":"sha256:…"}],"version":1}
/// ```
///
/// Each entry makes the object `to` from the object `from` (of `fromSize` bytes) with the
/// patch stored at `patches/<patch hex>` (``path(of:)``), `size` bytes, content-addressed by
/// its SHA-256. Entries are sorted by `to`, then `from`; canonical JSON, so the same patches
/// give the same bytes.
public struct PatchIndex: Sendable, Equatable {
    public struct Entry: Sendable, Equatable, Comparable {
        /// The object the patch starts from: one of a previous revision.
        public var from: Digest
        /// Its size, for the cache's verified read.
        public var fromSize: Int64
        /// The object the patch makes: one of this bundle.
        public var to: Digest
        /// The patch's own digest, its name under `patches/`.
        public var patch: Digest
        /// The patch's size in bytes.
        public var size: Int64

        public init(from: Digest, fromSize: Int64, to: Digest, patch: Digest, size: Int64) {
            self.from = from
            self.fromSize = fromSize
            self.to = to
            self.patch = patch
            self.size = size
        }

        public static func < (lhs: Entry, rhs: Entry) -> Bool { (lhs.to, lhs.from) < (rhs.to, rhs.from) }

        /// The bytes this entry adds to an index's canonical JSON, its separating comma
        /// included (about 290).
        public var encodedSize: Int { json.canonicalBytes.count + 1 }

        var json: JSONValue {
            .object([
                "from": .string(from.description), "fromSize": .int(fromSize), "to": .string(to.description),
                "patch": .string(patch.description), "size": .int(size),
            ])
        }
    }

    /// The only format: ``ZstdPatch``.
    public static let format = "zstd"
    public static let version: Int64 = 1
    /// The largest index read: 4 MiB (about 16,000 entries).
    public static let maximumBytes = 4 << 20

    public private(set) var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries.sorted() }

    /// The index's path relative to the origin.
    public static func path(bundle: Digest) -> String { "bundles/\(bundle.hex)/patches.json" }

    /// A patch's path relative to the origin.
    public static func path(of patch: Digest) -> String { "patches/\(patch.hex)" }

    /// The entries that make `object`, in index order.
    public func patches(to object: Digest) -> [Entry] { entries.filter { $0.to == object } }

    public var bytes: [UInt8] {
        JSONValue.object([
            "format": .string(Self.format), "version": .int(Self.version),
            "patches": .array(entries.map(\.json)),
        ]).canonicalBytes
    }

    /// Reads an index.
    /// - Throws: ``FormatError``: ``FormatError/Code/limitExceeded`` past ``maximumBytes``,
    ///   ``FormatError/Code/unsupportedFormatVersion`` for another format or version,
    ///   ``FormatError/Code/invalidManifest`` naming the field that is wrong.
    public init(decoding bytes: [UInt8]) throws(FormatError) {
        guard bytes.count <= Self.maximumBytes else {
            throw FormatError(.limitExceeded, "the patch index has \(bytes.count) bytes; at most \(Self.maximumBytes) are accepted")
        }
        guard case .object(let members) = try JSONValue.parse(bytes, maximumValues: Self.maximumBytes / 16) else {
            throw FormatError(.invalidManifest, "a patch index is a JSON object")
        }
        guard case .string(Self.format)? = members["format"], case .int(Self.version)? = members["version"] else {
            throw FormatError(.unsupportedFormatVersion, "not a zstd patch index of version \(Self.version)", field: "format")
        }
        guard case .array(let values)? = members["patches"] else { throw FormatError(.invalidManifest, "must be an array", field: "patches") }
        var entries: [Entry] = []
        for (index, value) in values.enumerated() {
            let field = "patches[\(index)]"
            guard case .object(let entry) = value, entry.count == 5, case .string(let from)? = entry["from"],
                case .int(let fromSize)? = entry["fromSize"], case .string(let to)? = entry["to"], case .string(let patch)? = entry["patch"],
                case .int(let size)? = entry["size"], fromSize >= 0, size > 0
            else { throw FormatError(.invalidManifest, "not a patch entry", field: field) }
            do {
                entries.append(
                    Entry(from: try Digest(parsing: from), fromSize: fromSize, to: try Digest(parsing: to), patch: try Digest(parsing: patch), size: size))
            } catch {
                var error = error
                error.field = field
                throw error
            }
        }
        self.init(entries: entries)
    }
}
