import Foundation
import LarderCache
import LarderFormat

/// An error fetching from an origin.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. Extensible.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The origin could not be reached, or the connection dropped.
        public static let connection = Code("connection")
        /// No answer within the deadline.
        public static let timeout = Code("timeout")
        /// A status the request did not expect (``TransportError/status`` says which).
        public static let unexpectedStatus = Code("unexpected-status")
        /// Bytes that do not hash to the digest they were fetched for: the server lied or the
        /// data was damaged. Nothing from it reached the cache.
        public static let digestMismatch = Code("digest-mismatch")
        /// A document that does not parse (manifest, journey document, Content-Range).
        public static let malformedDocument = Code("malformed-document")
        /// The request was cancelled.
        public static let cancelled = Code("cancelled")
        /// The cache refused or failed the install (``TransportError/cacheError`` says why).
        public static let cache = Code("cache")
    }

    public var code: Code
    public var message: String
    public var url: URL?
    public var status: Int?
    public var cacheError: CacheError?

    public init(_ code: Code, _ message: String, url: URL? = nil, status: Int? = nil, cacheError: CacheError? = nil) {
        self.code = code
        self.message = message
        self.url = url
        self.status = status
        self.cacheError = cacheError
    }

    public var description: String {
        (url.map { "\($0.absoluteString): " } ?? "") + message + (status.map { " (HTTP \($0))" } ?? "")
            + (cacheError.map { ": \($0)" } ?? "")
    }

    /// Whether trying again may succeed (dropped connections and timeouts).
    public var isRetryable: Bool { code == .connection || code == .timeout }
}
