#if canImport(CCurl)
import CCurl
import LarderSystem

/// The libcurl easy handles of one bucket's requests, kept between requests so each reuses the
/// connection the last one left open (libcurl keeps a handle's connections across
/// `curl_easy_reset`) instead of opening a new one: a publish makes one request per file.
/// Thread-safe; a handle is used by one request at a time.
final class S3Connections: Sendable {
    /// At most this many idle handles are kept (one per concurrent request is enough).
    static let idleLimit = 8
    private let idle = Locked<[UInt]>([])  // handle addresses: raw pointers are not Sendable

    deinit {
        for address in idle.withLock({ $0 }) { curl_easy_cleanup(UnsafeMutableRawPointer(bitPattern: address)) }
    }

    /// An idle handle, reset to libcurl's defaults, or a new one; nil when libcurl cannot make
    /// one.
    func take() -> UnsafeMutableRawPointer? {
        if let address = idle.withLock({ $0.popLast() }), let handle = UnsafeMutableRawPointer(bitPattern: address) {
            curl_easy_reset(handle)
            return handle
        }
        return curl_easy_init()
    }

    /// Gives a handle back after its request: kept when `reusable` and there is room, else
    /// cleaned up (a failed request's connection is not trusted again).
    func giveBack(_ handle: UnsafeMutableRawPointer, reusable: Bool) {
        let kept = reusable && idle.withLock { (idle) -> Bool in
            guard idle.count < Self.idleLimit else { return false }
            idle.append(UInt(bitPattern: handle))
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }
}
#endif
