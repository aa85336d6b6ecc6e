import Foundation
import LarderCache
import LarderFormat
import LarderSystem
import LarderTransport

extension TransportError {
    /// The cache's refusal or failure behind a `TransportError/Code/cache` or
    /// `TransportError/Code/diskFull` error: its `cause`, read as a `CacheError`.
    public var cacheError: CacheError? {
        get { cause as? CacheError }
        set { cause = newValue }
    }

    /// An error of the cache's, with the cache's error beneath it.
    public init(
        _ code: Code, _ message: String, url: URL? = nil, status: Int? = nil, digest: Digest? = nil, cacheError: CacheError?
    ) {
        self.init(code, message, url: url, status: status, digest: digest, cause: cacheError)
    }

    /// A failed write of downloaded bytes: its own code when the disk is full.
    static func write(_ error: Errno, path: String, url: URL?) -> TransportError {
        if error.rawValue == ENOSPC || error.rawValue == EDQUOT {
            return TransportError(.diskFull, "no space left for the download \(path)", url: url)
        }
        return TransportError(.cache, "cannot write the download \(path): \(error)", url: url)
    }
}

extension CacheError: DigestNamingError {
    /// The description, without the digest when it is `digest` (which the transport error
    /// names already).
    public func description(omitting digest: Digest?) -> String {
        var inner = self
        if inner.digest == digest { inner.digest = nil }
        return inner.description
    }
}
