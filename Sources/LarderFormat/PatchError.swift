/// Why a patch could not be made or applied. A device falls back to the whole object on any of
/// these; none of them leaves wrong bytes anywhere.
public struct PatchError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The patch is not one zstd frame that decodes against its base: truncated, damaged,
        /// trailing bytes, or a frame of another kind.
        public static let damaged = Code("damaged-patch")
        /// The patch, its window or its output is past a ``PatchLimits`` bound.
        public static let limitExceeded = Code("limit-exceeded")
        /// The patch decodes to another number of bytes than the manifest states.
        public static let sizeMismatch = Code("size-mismatch")
        /// The patch, or what it decodes to, does not hash to the digest it should.
        public static let digestMismatch = Code("digest-mismatch")
        /// libzstd failed for another reason (out of memory); the message has its text.
        public static let library = Code("zstd")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
