import LarderFormat

/// Why a publish target could not do what was asked.
public struct PublishError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The local folder, or a local file to send, failed (the ``PublishError/cause``).
        public static let local = Code("local")
        /// A file's content breaks Larder's formats (a damaged history or document, a revision
        /// that cannot follow): the ``PublishError/cause`` says which.
        public static let format = Code("format")
        /// A journey id or publishable key with characters an origin does not serve.
        public static let invalidIdentifier = Code("invalid-identifier")
        /// A file at an immutable path is not what it should be (another size).
        public static let damaged = Code("damaged")
        /// The object store refused the credentials (unknown key, bad signature, expired token,
        /// access denied).
        public static let credentials = Code("credentials")
        /// The bucket does not exist.
        public static let noSuchBucket = Code("no-such-bucket")
        /// The endpoint answered, but not as an S3 service does.
        public static let notObjectStore = Code("not-object-store")
        /// The service kept answering 5xx or SlowDown after every retry.
        public static let unavailable = Code("unavailable")
        /// The connection kept failing (refused, dropped mid-transfer, timed out) after every retry.
        public static let connection = Code("connection")
        /// Another publisher kept changing the journey for every retry.
        public static let contended = Code("contended")
        /// The service gave a mutable file a new validator (ETag) on every read while its bytes
        /// stayed the same, so no conditional write can succeed.
        public static let unstableValidator = Code("unstable-validator")
        /// The service answered a PUT with an ETag that is not the MD5 of the body sent, every
        /// time it was sent: it keeps other bytes than it got (or its ETags are not MD5s).
        public static let integrity = Code("integrity")
        /// A local file to send is not what its name says: a symbolic link, not a regular
        /// file, or bytes that do not hash to the digest it is named by (the
        /// ``PublishError/cause`` says which). Nothing of it was sent.
        public static let sourceMismatch = Code("source-mismatch")
        /// Any other answer the service should not have given.
        public static let unexpected = Code("unexpected")

        // What a publish reports (``PublishError/reported``), the codes `larder publish` has
        // always reported (the packer's `PackError.Code` of the same names): the CLI's exit
        // statuses and `--json` output go by them.

        /// The origin folder could not be written (or read).
        public static let outputFailed = Code("output-failed")
        /// What was asked cannot be published: a damaged or unfitting archive or journey file,
        /// a rollout or rollback that cannot be, an origin folder that is not one.
        public static let invalidConfiguration = Code("invalid-configuration")
        /// The origin (an object store) refused or could not serve a publish: credentials, no
        /// such bucket, not an S3 service, errors after every retry.
        public static let originUnavailable = Code("origin-unavailable")
        /// The connection to the origin kept failing mid-transfer after every retry.
        public static let originTransfer = Code("origin-transfer")
        /// A file of an origin folder to upload is not what its name says (nothing was sent).
        public static let invalidSource = Code("invalid-source")
    }

    public var code: Code
    public var message: String
    /// The origin path (or bucket key) involved.
    public var path: String?
    public var cause: FormatError?

    public init(_ code: Code, _ message: String, path: String? = nil, cause: FormatError? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }

    /// A local failure, keeping the format error's message.
    public init(_ error: FormatError) {
        self.init(error.code == .io || error.code == .noSpace ? .local : .format, error.message, path: error.path, cause: error)
    }

    public var description: String { (path.map { "\($0): " } ?? "") + message }
}

extension PublishError {
    /// Runs a local operation, its failures as ``PublishError``.
    static func local<T>(_ body: () throws(FormatError) -> T) throws(PublishError) -> T {
        do { return try body() } catch { throw PublishError(error) }
    }
}
