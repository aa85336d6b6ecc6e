import LarderFormat
import LarderSystem

/// An error from the device-side cache.
///
/// Every error says what to do: most are recoverable by refetching the bundle or object it
/// names in ``digest`` (and ``bundles``).
public struct CacheError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. Extensible.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A URL that is not exactly `larder-font://sha256/<64 lowercase hex>`, given as text
        /// where a font is asked for (`FontURL.init(parsing:)` refused it;
        /// ``CacheError/init(malformedFontURL:)``).
        public static let malformedFontURL = Code("malformed-font-url")
        /// A well-formed font URL whose font no bundle in the cache has.
        public static let unknownFont = Code("unknown-font")
        /// The archive was refused; ``CacheError/cause`` says why (path traversal, link,
        /// bomb, digest mismatch of an entry, …). Nothing was changed.
        public static let invalidBundle = Code("invalid-bundle")
        /// The archive's manifest does not hash to the digest it was fetched for.
        public static let bundleDigestMismatch = Code("bundle-digest-mismatch")
        /// No bundle with that digest is in the cache.
        public static let bundleNotFound = Code("bundle-not-found")
        /// The bundle lost an object to corruption and must be refetched.
        public static let bundleIncomplete = Code("bundle-incomplete")
        /// The bundle has no file at that path.
        public static let resourceNotFound = Code("resource-not-found")
        /// A stored object failed verification: it was quarantined and ``CacheError/digest``
        /// names what to refetch; ``CacheError/bundles`` the bundles that need it.
        public static let corruptObject = Code("corrupt-object")
        /// The bundle is pinned, leased or the embedded default and cannot be removed.
        public static let bundleInUse = Code("bundle-in-use")
        /// The index or the file system failed.
        public static let storage = Code("storage")
        /// The file system is full (or the quota is used up); nothing was installed. Free
        /// space (`larder cache gc`, `evict`) and try again.
        public static let diskFull = Code("disk-full")
        /// Another connection held the index's lock past the time allowed (none, for a call
        /// that must not wait); try again.
        public static let busy = Code("busy")
        /// The cache cannot be changed: it was opened read-only (``LarderCache/Mode/readOnly``),
        /// or its folder or index is not writable (a read-only file system, another user's
        /// cache). Nothing was changed; change it read-write, as a user who may write it.
        public static let readOnly = Code("read-only")
        /// The cache's path is something other than a folder. (A read-only open of a folder
        /// with no cache in it finds an empty cache, and creates nothing.)
        public static let cacheNotFound = Code("cache-not-found")
        /// Something Larder did not make is where the cache keeps a folder or its index: a
        /// symbolic link (a cache restored from a backup or an artifact, a shared folder), a
        /// FIFO, a device, a file where a folder belongs. Larder never follows or opens it (a
        /// removal through a link would delete what it points at; a FIFO would block): nothing
        /// was changed. Remove it (`rm` removes a link, not what it points at), then open the
        /// cache again.
        public static let foreignEntry = Code("foreign-entry")
    }

    public var code: Code
    public var message: String
    /// The URL involved, if any.
    public var url: String?
    /// The object or bundle digest involved: what to refetch.
    public var digest: Digest?
    /// Bundles affected (for corrupt objects: the bundles to refetch).
    public var bundles: [Digest]
    /// A file-system path involved, if any.
    public var path: String?
    /// The format error behind an ``Code/invalidBundle``.
    public var cause: FormatError?

    public init(
        _ code: Code, _ message: String, url: String? = nil, digest: Digest? = nil, bundles: [Digest] = [],
        path: String? = nil, cause: FormatError? = nil
    ) {
        self.code = code
        self.message = message
        self.url = url
        self.digest = digest
        self.bundles = bundles
        self.path = path
        self.cause = cause
    }

    /// `Code.malformedFontURL` with the message and URL of the error `FontURL.init(parsing:)`
    /// threw, for a font asked for as text.
    public init(malformedFontURL error: FormatError) {
        self.init(.malformedFontURL, error.message, url: error.url)
    }

    /// A failed file-system call: ``Code/diskFull`` when the disk is full, ``Code/readOnly``
    /// when the file system is read-only or the folder belongs to someone else, ``Code/storage``
    /// otherwise.
    static func fileSystem(_ message: String, _ error: Errno, path: String? = nil, digest: Digest? = nil) -> CacheError {
        let code: Code =
            if error.isNoSpace { .diskFull } else if error.isNotWritable { .readOnly } else { .storage }
        return CacheError(code, "\(message): \(error)", digest: digest, path: path)
    }

    /// ``Code/foreignEntry`` for `path`, which is `kind` (a symbolic link, a FIFO, …) where the
    /// cache keeps `what`.
    static func foreign(_ path: String, is kind: FileKind, where what: String) -> CacheError {
        CacheError(
            .foreignEntry,
            "this is \(kind.description) where the cache keeps \(what); Larder does not follow or open it, and changed nothing: "
                + "remove it (rm removes a link, not what it points at) and open the cache again", path: path)
    }

    /// This error, naming the archive `path` when it names no file or URL (a refusal of what
    /// was read from it).
    func naming(_ path: String) -> CacheError {
        guard url == nil, self.path == nil, code == .invalidBundle || code == .bundleDigestMismatch else { return self }
        var error = self
        error.path = path
        return error
    }

    public var description: String {
        var text = (url.map { "\($0): " } ?? path.map { "\($0): " } ?? "") + message
        if let digest { text += " [\(digest)]" }
        if let cause { text += ": " + (cause.path != nil && cause.path == path ? cause.detail : cause.description) }
        return text
    }
}
