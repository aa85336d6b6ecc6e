import LarderFormat

/// A place in a source file: 1-based line and column (columns count Unicode scalars).
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

extension SourceLocation {
    /// The line and column of a byte offset in a file's bytes (lines end at `\n`; columns
    /// count Unicode scalars, as the scanners' do).
    public init(file: String, offset: Int, in bytes: [UInt8]) {
        let before = bytes.prefix(offset)
        let lineStart = (before.lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
        let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let column = String(decoding: before[lineStart...], as: UTF8.self).unicodeScalars.count + 1
        self.init(file: file, line: line, column: column)
    }
}

/// An error in a bundle's source folder or in packing it.
public struct PackError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. Extensible.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A local reference to a file that is not in the bundle.
        public static let missingReference = Code("missing-reference")
        /// A reference that climbs out of the bundle folder.
        public static let escapingReference = Code("escaping-reference")
        /// A reference no renderer would load: malformed percent-encoding in its path, or a
        /// `larder-font:` URL not of the scheme's exact form.
        public static let malformedReference = Code("malformed-reference")
        /// An `http(s):` reference, refused under `--strict`.
        public static let remoteReference = Code("remote-reference")
        /// A file or folder name that is not valid UTF-8, too long, not NFC or otherwise unsafe.
        public static let invalidName = Code("invalid-name")
        /// A journey id or publishable key with characters an origin does not serve: a fault
        /// of the command line, not of the files.
        public static let invalidIdentifier = Code("invalid-identifier")
        /// Two names that differ only in Unicode normalization.
        public static let conflictingNames = Code("conflicting-names")
        /// A file that cannot be read, or is a link, device, FIFO or socket.
        public static let unreadableFile = Code("unreadable-file")
        /// `larder.json` is malformed or names a missing entry document.
        public static let invalidConfiguration = Code("invalid-configuration")
        /// The source folder itself is missing or not a folder.
        public static let invalidSource = Code("invalid-source")
        /// The output could not be written.
        public static let outputFailed = Code("output-failed")
        /// The origin (an object store) refused or could not serve a publish: credentials, no
        /// such bucket, not an S3 service, errors after every retry.
        public static let originUnavailable = Code("origin-unavailable")
        /// The connection to the origin kept failing mid-transfer after every retry.
        public static let originTransfer = Code("origin-transfer")
        /// The bundle passes a limit every reader keeps (manifest size, entries, bytes,
        /// compression ratio: `ArchiveReader.Limits`), so no archive of it could be read.
        public static let limitExceeded = Code("limit-exceeded")
        /// A font no library could convert, refused under `--strict` (else packed as it is).
        public static let unconvertedFont = Code("unconverted-font")
        /// A WOFF or WOFF2 font whose tables decode to more than the 16 MiB the packer converts,
        /// found from its headers before anything inflates.
        public static let fontTooLarge = Code("font-too-large")
        /// A character the text uses that no subset holds, with `"keepUsed": false`, refused
        /// under `--strict`.
        public static let uncoveredCharacter = Code("uncovered-character")
    }

    public var code: Code
    public var message: String
    /// The source file or folder involved, relative to the bundle root when inside it.
    public var path: String?
    /// Where in a source file, for reference errors.
    public var location: SourceLocation?
    public var cause: FormatError?

    public init(_ code: Code, _ message: String, path: String? = nil, location: SourceLocation? = nil, cause: FormatError? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.location = location
        self.cause = cause
    }

    public var description: String {
        let place = location.map { "\($0): " } ?? path.map { "\($0): " } ?? ""
        // The cause only when it says more: most wrappers take its message as theirs.
        guard let cause, !message.contains(cause.message) else { return place + message }
        return place + message + " (\(cause))"
    }
}

/// All the problems found in a source folder, reported together so one run shows every
/// missing reference at once.
public struct PackFailure: Error, Sendable, CustomStringConvertible {
    public var errors: [PackError]

    public init(_ errors: [PackError]) { self.errors = errors }

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
