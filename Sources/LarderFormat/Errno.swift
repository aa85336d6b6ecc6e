#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX error number with its `strerror` text.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's current `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    public static let interrupted = Errno(rawValue: EINTR)
    public static let exists = Errno(rawValue: EEXIST)
    public static let notFound = Errno(rawValue: ENOENT)

    public var description: String { String(cString: strerror(rawValue)) }

    /// Whether the file system is full or the quota used up (`ENOSPC`, `EDQUOT`).
    public var isNoSpace: Bool { rawValue == ENOSPC || rawValue == EDQUOT }
}

/// Calls `body` until it does not fail with `EINTR`; returns its result or throws the errno.
///
/// Never use it for `close`: on Linux the descriptor is gone even when `close` says `EINTR`.
@inline(__always)
public func valueOrErrno<T: FixedWidthInteger>(
    retryOnInterrupt: Bool = true, _ body: () -> T
) throws(Errno) -> T {
    while true {
        let value = body()
        if value != -1 { return value }
        let error = Errno.current
        if retryOnInterrupt && error == .interrupted { continue }
        throw error
    }
}
