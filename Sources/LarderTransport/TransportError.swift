import Foundation
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
        /// No answer within the request's time limit, or the fetch's deadline passed.
        public static let timeout = Code("timeout")
        /// Bytes came slower than the request's minimum speed.
        public static let tooSlow = Code("too-slow")
        /// A body (or its declared size, or a `Content-Range` total) beyond what the request
        /// may receive: the bound comes from the manifest, the archive or the document kind.
        public static let tooLarge = Code("too-large")
        /// A `Content-Encoding` the request did not ask for, or a body that does not decode.
        public static let unexpectedEncoding = Code("unexpected-encoding")
        /// Too many redirects (a loop).
        public static let redirectLoop = Code("redirect-loop")
        /// A redirect out of the request's origin (another scheme, host or port: https to http
        /// too) or to something other than an http(s) URL: never followed, so nothing the
        /// request carries reaches another server (``RedirectRule``).
        public static let redirectRefused = Code("redirect-refused")
        /// A status the request did not expect (``TransportError/status`` says which).
        public static let unexpectedStatus = Code("unexpected-status")
        /// Bytes that do not hash to the digest they were fetched for: the server lied or the
        /// data was damaged. Nothing from it reached the cache.
        public static let digestMismatch = Code("digest-mismatch")
        /// A document that does not parse (manifest, journey document, Content-Range).
        public static let malformedDocument = Code("malformed-document")
        /// The request was cancelled.
        public static let cancelled = Code("cancelled")
        /// The file system is full (or the quota is used up): the partial download was
        /// removed. Free space, then fetch again.
        public static let diskFull = Code("disk-full")
        /// Another process kept downloading the same bundle into the same cache past this
        /// fetch's deadline.
        public static let busy = Code("busy")
        /// The cache refused or failed the install (``TransportError/cause`` says why; LarderFetch
        /// reads it as a `CacheError`).
        public static let cache = Code("cache")
    }

    public var code: Code
    public var message: String
    public var url: URL?
    public var status: Int?
    /// The bundle or object involved.
    public var digest: Digest?
    /// The error beneath this one, from a layer above HTTP: the cache's refusal of an install,
    /// say (LarderFetch's `cacheError` reads it as a `CacheError`).
    public var cause: (any Error & Sendable)?

    public init(
        _ code: Code, _ message: String, url: URL? = nil, status: Int? = nil, digest: Digest? = nil,
        cause: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.url = url
        self.status = status
        self.digest = digest
        self.cause = cause
    }

    /// What was refused and why, naming the URL, and the digest once (a cause that names the
    /// same digest does not repeat it: ``DigestNamingError``).
    public var description: String {
        var text = (url.map { "\($0.absoluteString): " } ?? "") + message + (status.map { " (HTTP \($0))" } ?? "")
        if let cause {
            text += ": " + ((cause as? any DigestNamingError)?.description(omitting: digest) ?? "\(cause)")
        }
        if let digest { text += " [\(digest)]" }
        return text
    }

    /// Whether trying again may succeed at once (dropped connections and timeouts of one
    /// request); a fetch stops retrying at its deadline.
    public var isRetryable: Bool { code == .connection || code == .timeout || code == .tooSlow }

    /// A body past its bound.
    static func tooLarge(_ url: URL?, limit: Int64) -> TransportError {
        TransportError(.tooLarge, "the response is larger than the \(limit) bytes it may have", url: url)
    }
}
