#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls `body` until it does not fail with `EINTR`; returns its result or throws the errno.
/// The one place that retries interrupted system calls.
///
/// Never use it for `close`: on Linux the descriptor is gone even when `close` says `EINTR`.
/// - Parameters:
///   - retryOnInterrupt: false to throw ``Errno/interrupted`` like any other error.
///   - body: the system call; -1 means failure with `errno` set.
/// - Returns: what `body` returned.
/// - Throws: ``Errno`` when `body` returned -1.
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

/// ``valueOrErrno(retryOnInterrupt:_:)`` for calls that return 0 or -1 (`fsync`, `unlink`,
/// `rename`, `flock`): nothing, or the errno.
@inline(__always)
public func nothingOrErrno(retryOnInterrupt: Bool = true, _ body: () -> Int32) throws(Errno) {
    _ = try valueOrErrno(retryOnInterrupt: retryOnInterrupt, body)
}
