/// A failure of the host's own storage: its state (`host.sqlite`: backoff, the last authorised
/// documents, accepted revisions) or its capture queue (`capture.sqlite`). Not the cache's:
/// these files are the host's, and what to do about them differs.
///
/// ``HostError`` carries it as ``HostError/storageError`` with code ``HostError/Code/storage``.
public struct HostStorageError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. Extensible.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// SQLite or the file system failed; the message says how.
        public static let failed = Code("failed")
        /// The file system is full (or the quota is used up); free space and try again.
        public static let diskFull = Code("disk-full")
        /// The file or its folder cannot be written by this process.
        public static let readOnly = Code("read-only")
        /// Another connection held the file's lock past the time allowed; try again.
        public static let busy = Code("busy")
        /// The file is not what the host wrote (another database, another schema, a damaged
        /// row, a folder): it was left untouched; move it away or choose another path.
        public static let foreign = Code("foreign")
        /// The folder for the host's files cannot be created.
        public static let folder = Code("folder")
    }

    public var code: Code
    public var message: String
    /// The file or folder involved.
    public var path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    public var description: String { (path.map { "\($0): " } ?? "") + message }
}

extension HostError {
    /// ``Code/storage`` for a failure of the host's own storage, saying what was being done.
    init(storage error: HostStorageError, _ action: String) {
        self.init(.storage, action, storageError: error)
    }
}
