#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a path or descriptor is (the `S_IFMT` bits of `st_mode`).
public enum FileKind: Sendable, Equatable {
    case regular, folder, fifo, characterDevice, blockDevice, socket, symbolicLink, unknown

    /// - Parameter mode: `st_mode` from `stat(2)`, `lstat(2)` or `fstat(2)`.
    public init(mode: mode_t) {
        self =
            switch mode & S_IFMT {
            case S_IFREG: .regular
            case S_IFDIR: .folder
            case S_IFIFO: .fifo
            case S_IFCHR: .characterDevice
            case S_IFBLK: .blockDevice
            case S_IFSOCK: .socket
            case S_IFLNK: .symbolicLink
            default: .unknown
            }
    }

    /// The kind for people: "a folder", "a FIFO", "a character device", ….
    public var description: String {
        switch self {
        case .regular: "a file"
        case .folder: "a folder"
        case .fifo: "a FIFO"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .symbolicLink: "a symbolic link"
        case .unknown: "of an unknown kind"
        }
    }
}

/// What `stat(2)` says of a file, the fields Larder uses.
public struct FileStatus: Sendable, Equatable {
    public var kind: FileKind
    /// `st_size`, in bytes.
    public var size: Int64
    /// `st_dev` and `st_ino`: the same pair means the same file.
    public var device: UInt64
    public var inode: UInt64
    /// `st_mtim`'s seconds since 1970.
    public var modified: Int64

    init(_ info: stat) {
        kind = FileKind(mode: info.st_mode)
        size = Int64(info.st_size)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        #if canImport(Darwin)
        modified = Int64(info.st_mtimespec.tv_sec)
        #else
        modified = Int64(info.st_mtim.tv_sec)
        #endif
    }

    /// The status of what is at `path`, following a symbolic link (`stat(2)`).
    /// - Throws: ``Errno`` (``Errno/notFound`` when nothing is there).
    public static func of(_ path: String) throws(Errno) -> FileStatus {
        var info = stat()
        try nothingOrErrno { stat(path, &info) }
        return FileStatus(info)
    }

    /// The status of `path` itself, a symbolic link not followed (`lstat(2)`).
    public static func ofLink(_ path: String) throws(Errno) -> FileStatus {
        var info = stat()
        try nothingOrErrno { lstat(path, &info) }
        return FileStatus(info)
    }
}
