import LarderCache
import LarderFetch
import LarderFormat
import LarderTransport

/// An error from the journey host.
///
/// Messages name the journey, URL, resource or digest involved and say what to do; they are
/// for logs, not for end-user UI.
public struct HostError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. Extensible.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The origin answered 401, 403 or a confirmed 404: prepared content for the scope was
        /// discarded; the next attempt authorises afresh. ``HostError/status`` says which.
        public static let denied = Code("denied")
        /// The origin could not be reached, or answered with a status that says nothing about
        /// access (5xx, 429, an unconfirmed 404); cached content stays usable.
        public static let unavailable = Code("unavailable")
        /// The host waits out a backoff or `Retry-After` before asking the origin again.
        public static let backingOff = Code("backing-off")
        /// The configuration document or a bridge message does not parse.
        public static let malformedDocument = Code("malformed-document")
        /// A bridge message was larger than ``BridgeLimits/maximumMessageBytes`` or came past
        /// the presentation's rate limit: refused and counted (``RendererBridge/counts``).
        public static let limitExceeded = Code("limit-exceeded")
        /// The presentation did not become ready within its deadline (15 s); try again.
        public static let deadlineExceeded = Code("deadline-exceeded")
        /// The renderer failed; ``HostError/resource`` names the resource when one did not
        /// resolve.
        public static let renderer = Code("renderer")
        /// No content fits the renderer: the authorised bundle needs a newer renderer protocol
        /// or a capability the renderer lacks, and no older cached revision or embedded
        /// default fits either. ``HostError/digest`` names the bundle.
        public static let incompatible = Code("incompatible")
        /// The cache refused or failed; ``HostError/cacheError`` says why.
        public static let cache = Code("cache")
        /// The capture endpoint refused an event for good because of the event itself (HTTP
        /// 400, 409, 413, 415, 422 or 431): it was dropped from the queue undelivered.
        public static let refused = Code("refused")
        /// A configuration document was refused by the trusted keys: unsigned, signed by an
        /// unknown key, badly signed, expired or a rollback. Cached content stays usable.
        public static let rejected = Code("rejected")
        /// The host's own storage (its state or its capture queue) failed;
        /// ``HostError/storageError`` says how, when it is known.
        public static let storage = Code("storage")
        /// An app event's name (``JourneyHost/track(_:properties:)``) is not
        /// `^[a-z][a-z0-9_:]*$` (at most 100 characters); the message names it.
        public static let invalidEventName = Code("invalid-event-name")
        /// A bundle asked for by digest (``JourneyHost/preview(bundle:context:)``) is neither
        /// in the cache nor at the origin (404). ``HostError/digest`` names it.
        public static let bundleNotFound = Code("bundle-not-found")
        /// A revision asked for by number or bundle (``JourneyHost/present(version:context:)``)
        /// is not one the origin published for the journey; the message names it.
        public static let revisionNotFound = Code("revision-not-found")
        /// The host was disposed and cannot present any more.
        public static let disposed = Code("disposed")
        /// The work was cancelled, for example by a configuration change.
        public static let cancelled = Code("cancelled")
    }

    public var code: Code
    public var message: String
    /// The HTTP status behind a denial or an unavailable origin.
    public var status: Int?
    /// The bundle path of a resource that failed to resolve.
    public var resource: String?
    /// The object or bundle digest involved.
    public var digest: Digest?
    public var cacheError: CacheError?
    public var transportError: TransportError?
    /// Why the host's own storage failed (``Code/storage``).
    public var storageError: HostStorageError?

    public init(
        _ code: Code, _ message: String, status: Int? = nil, resource: String? = nil, digest: Digest? = nil,
        cacheError: CacheError? = nil, transportError: TransportError? = nil, storageError: HostStorageError? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.resource = resource
        self.digest = digest
        self.cacheError = cacheError
        self.transportError = transportError
        self.storageError = storageError
    }

    /// Whether trying again later may succeed (everything but a denial, malformed content,
    /// a refused event, a bundle or revision the origin does not have and disposal).
    public var isRetryable: Bool {
        ![.denied, .malformedDocument, .refused, .disposed, .bundleNotFound, .revisionNotFound].contains(code)
    }

    public var description: String {
        var text = (resource.map { "\($0): " } ?? "") + message
        if let status { text += " (HTTP \(status))" }
        if let digest { text += " [\(digest)]" }
        // The digest once: causes that name the same one do not repeat it.
        if var cacheError {
            if cacheError.digest == digest { cacheError.digest = nil }
            text += ": \(cacheError)"
        }
        if var transportError {
            if transportError.digest == digest { transportError.digest = nil }
            if transportError.cacheError?.digest == digest { transportError.cacheError?.digest = nil }
            text += ": \(transportError)"
        }
        if let storageError { text += ": \(storageError)" }
        return text
    }
}

extension HostError {
    init(_ error: CacheError) {
        self.init(.cache, "the cache failed", digest: error.digest, cacheError: error)
    }
}
