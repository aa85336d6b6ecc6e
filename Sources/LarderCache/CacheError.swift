import LarderFormat

/// An error from the device-side cache.
public struct CacheError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. Extensible.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A URL that is not exactly `larder-font://sha256/<64 lowercase hex>`.
        public static let malformedFontURL = Code("malformed-font-url")
    }

    public var code: Code
    public var message: String
    /// The URL involved, if any.
    public var url: String?
    /// The digest involved, if any: what to refetch.
    public var digest: Digest?

    public init(_ code: Code, _ message: String, url: String? = nil, digest: Digest? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.digest = digest
    }

    public var description: String {
        (url.map { "\($0): " } ?? "") + message + (digest.map { " (\($0))" } ?? "")
    }
}
