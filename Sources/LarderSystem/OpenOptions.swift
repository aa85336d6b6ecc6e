#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How ``FileDescriptor/init(opening:_:permissions:)`` opens a file: the `open(2)` flags.
/// Without ``writeOnly`` or ``readWrite`` the file is opened for reading only (`O_RDONLY`).
public struct OpenOptions: OptionSet, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `O_RDONLY`: no flag at all.
    public static let readOnly: OpenOptions = []
    /// `O_WRONLY`.
    public static let writeOnly = OpenOptions(rawValue: O_WRONLY)
    /// `O_RDWR`.
    public static let readWrite = OpenOptions(rawValue: O_RDWR)
    /// `O_CREAT`: creates the file when missing, with the permissions given.
    public static let create = OpenOptions(rawValue: O_CREAT)
    /// `O_EXCL`: with ``create``, fails with ``Errno/exists`` when something is there.
    public static let exclusive = OpenOptions(rawValue: O_EXCL)
    /// `O_TRUNC`: empties a file opened for writing.
    public static let truncate = OpenOptions(rawValue: O_TRUNC)
    /// `O_APPEND`: every write goes to the end of the file.
    public static let append = OpenOptions(rawValue: O_APPEND)
    /// `O_NOFOLLOW`: refuses a symbolic link (`ELOOP`).
    public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
    /// `O_NONBLOCK`: a FIFO without a writer or a device cannot block the open.
    public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
    /// `O_NOCTTY`: a terminal does not become the controlling one.
    public static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
    /// `O_DIRECTORY`: refuses anything but a folder.
    public static let folder = OpenOptions(rawValue: O_DIRECTORY)
}
