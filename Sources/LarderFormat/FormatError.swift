/// An error raised while reading, writing or checking Larder's formats: digests, manifests
/// and bundle archives.
///
/// Each error carries a ``Code`` a program can switch on, a message for people that says what
/// was wrong and what to do, and where it was found: a file-system path, a bundle entry, or a
/// manifest field.
public struct FormatError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. Extensible: new codes may be added in later versions.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Text that is not a `sha256:<64 lowercase hex>` digest.
        public static let invalidDigest = Code("invalid-digest")
        /// Bytes that are not well-formed JSON.
        public static let invalidJSON = Code("invalid-json")
        /// A manifest that is well-formed JSON but breaks the manifest rules.
        public static let invalidManifest = Code("invalid-manifest")
        /// A manifest written by a newer, unknown format version.
        public static let unsupportedFormatVersion = Code("unsupported-format-version")
        /// A bundle path that is absolute, climbs out, is not NFC, is too long or too deep.
        public static let invalidPath = Code("invalid-path")
        /// An operating-system call failed.
        public static let io = Code("io")
        /// A write failed because the file system is full or the quota is used up.
        public static let noSpace = Code("no-space")
        /// libarchive or zlib reported a malformed or truncated archive.
        public static let malformedArchive = Code("malformed-archive")
        /// The archive ends early (cut-off download, truncated gzip).
        public static let truncated = Code("truncated")
        /// A reader limit (entries, bytes, compression ratio) was passed.
        public static let limitExceeded = Code("limit-exceeded")
        /// A link, device, FIFO or other non-regular archive entry.
        public static let unsupportedEntryType = Code("unsupported-entry-type")
        /// The same path appears twice in an archive.
        public static let duplicateEntry = Code("duplicate-entry")
        /// An entry's bytes do not hash to the manifest's digest.
        public static let digestMismatch = Code("digest-mismatch")
        /// An entry's size differs from the manifest's size.
        public static let sizeMismatch = Code("size-mismatch")
        /// A manifest file has no entry in the archive.
        public static let missingEntry = Code("missing-entry")
        /// An archive entry that the manifest does not list.
        public static let unexpectedEntry = Code("unexpected-entry")
        /// A compression stream could not be written.
        public static let compression = Code("compression")
        /// Text or a file that is not the key it should be (an Ed25519 public or private key).
        public static let invalidKey = Code("invalid-key")
        /// A `larder-font:` URL that is not exactly `larder-font://sha256/<64 lowercase hex>`
        /// (``FontURL``).
        public static let malformedFontURL = Code("malformed-font-url")
        /// A URL path whose percent-encoding is malformed: a `%` not followed by two hex
        /// digits, or escapes that do not decode to UTF-8 (``URLPath``).
        public static let malformedURLPath = Code("malformed-url-path")
    }

    public var code: Code
    public var message: String
    /// The file-system path involved, if any.
    public var path: String?
    /// The bundle entry (path inside the bundle) involved, if any.
    public var entry: String?
    /// The manifest field involved, if any, as a JSON path such as `files[3].digest`.
    public var field: String?
    /// Where in the input a parse failed, in bytes from its start (malformed JSON).
    public var offset: Int?
    /// The URL involved, if any (its first 200 characters).
    public var url: String?
    /// The underlying error, if any.
    public var cause: (any Error & Sendable)?

    public init(
        _ code: Code, _ message: String, path: String? = nil, entry: String? = nil,
        field: String? = nil, offset: Int? = nil, url: String? = nil, cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.entry = entry
        self.field = field
        self.offset = offset
        self.url = url
        self.cause = cause
    }

    /// Where, each place once (`path: entry 'x', field 'y', byte 12: `), then what was wrong,
    /// and the cause when it says more than the message.
    public var description: String {
        (path ?? url).map { "\($0): \(detail)" } ?? detail
    }

    /// ``description`` without the path, for a wrapper that names the file itself.
    public var detail: String {
        let places = [entry.map { "entry '\($0)'" }, field.map { "field '\($0)'" }, offset.map { "byte \($0)" }].compactMap { $0 }
        return places.isEmpty ? messageAndCause : places.joined(separator: ", ") + ": " + messageAndCause
    }

    private var messageAndCause: String {
        guard let cause, case let said = "\(cause)", !message.contains(said) else { return message }
        return "\(message) (\(said))"
    }

    /// This error, naming `path` as the file involved unless it names one already.
    public func at(path: String) -> FormatError {
        var error = self
        if error.path == nil { error.path = path }
        return error
    }
}

extension FormatError {
    /// Runs `body`, whose errors are all ``FormatError`` but pass through a standard-library
    /// closure that rethrows untyped (`withUnsafeMutableBytes` and the like), and throws them
    /// typed again.
    @inlinable
    public static func typed<T>(_ body: () throws -> T) throws(FormatError) -> T {
        do {
            return try body()
        } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError(.io, "\(error)")
        }
    }
}
