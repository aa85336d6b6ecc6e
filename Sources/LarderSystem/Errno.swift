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

    /// `EINTR`: a signal interrupted the call; ``valueOrErrno(retryOnInterrupt:_:)`` retries it.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EEXIST`: something is at the path already.
    public static let exists = Errno(rawValue: EEXIST)
    /// `ENOENT`: nothing is at the path.
    public static let notFound = Errno(rawValue: ENOENT)
    /// `EWOULDBLOCK`: a lock is held by someone else (and the call was not to wait).
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    /// `EXDEV`: the paths are on different file systems.
    public static let crossDevice = Errno(rawValue: EXDEV)
    /// `EISDIR`: a folder where a file was expected.
    public static let isFolder = Errno(rawValue: EISDIR)
    /// `EPERM`: the operation is not permitted (`link(2)` of a folder on Linux).
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `ENOTDIR`: a part of the path is not a folder.
    public static let notAFolder = Errno(rawValue: ENOTDIR)
    /// `ELOOP`: a symbolic link where `O_NOFOLLOW` refused one (or too many links).
    public static let tooManyLinks = Errno(rawValue: ELOOP)
    /// `ENODEV`: no such device.
    public static let noSuchDevice = Errno(rawValue: ENODEV)
    /// `ENXIO`: no such device or address (a socket opened as a file).
    public static let noSuchDeviceOrAddress = Errno(rawValue: ENXIO)
    /// `ENOTEMPTY`: a folder that is not empty.
    public static let folderNotEmpty = Errno(rawValue: ENOTEMPTY)
    /// `EIO`: the device failed.
    public static let ioError = Errno(rawValue: EIO)

    public var description: String { String(cString: strerror(rawValue)) }

    /// Whether the file system is full or the quota used up (`ENOSPC`, `EDQUOT`).
    public var isNoSpace: Bool { rawValue == ENOSPC || rawValue == EDQUOT }

    /// Whether the file system or the file refuses writing to this process (`EROFS`, `EACCES`,
    /// `EPERM`): a read-only file system, or another user's file.
    public var isNotWritable: Bool { rawValue == EROFS || rawValue == EACCES || rawValue == EPERM }
}
