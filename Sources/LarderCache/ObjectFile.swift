import LarderFormat
#if canImport(Glibc)
import Glibc
#endif

/// Why an object file cannot be used.
enum ObjectFileProblem: Error {
    /// Nothing is at the object's path (`ENOENT`, or a shard that is not a folder).
    case missing
    /// Something else is there: a symbolic link, a folder, a FIFO, a device or a socket
    /// (named in the text).
    case notAFile(String)
    /// A file of another size than the one recorded.
    case wrongSize(actual: Int64, recorded: Int64)
    /// The file ended early while read (it shrank after it was checked).
    case shrank(to: Int64, recorded: Int64)
    /// The disk cannot read it (`EIO`).
    case unreadable(Errno)
    /// The system refused (permissions, descriptors, memory): no evidence of damage.
    case system(String, Errno)

    /// What is wrong with the file, when something is (not for ``missing`` and ``system(_:_:)``):
    /// such a file is quarantined like a digest mismatch.
    var damage: String? {
        switch self {
        case .missing, .system: nil
        case .notAFile(let kind): "it is \(kind), not a file"
        case .wrongSize(let actual, let recorded): "it has \(actual) bytes where \(recorded) are recorded"
        case .shrank(let actual, let recorded): "it shrank to \(actual) bytes while read, \(recorded) are recorded"
        case .unreadable(let error): "the disk cannot read it (\(error))"
        }
    }
}

/// An object file of the store, open for reading and checked before a byte of it is read:
/// opened with `O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC` (a symbolic link is refused,
/// a FIFO or device never blocks the open), then `fstat(2)` must say it is a regular file of
/// exactly the recorded size. Reads stop at that size whatever the file holds beyond it.
/// Closed on `deinit`.
struct ObjectFile: ~Copyable {
    let path: String
    /// The recorded size, checked against `fstat`.
    let size: Int64
    private let descriptor: Int32

    /// Opens and checks `path` (`open(2)`, `fstat(2)`).
    /// - Parameter size: the object's size as the index or the manifest records it.
    /// - Throws: ``ObjectFileProblem``.
    init(opening path: String, size: Int64) throws(ObjectFileProblem) {
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC
        let descriptor: Int32
        do { descriptor = try valueOrErrno { open(path, flags) } } catch {
            throw Self.openingProblem(error, path: path)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = Errno.current
            close(descriptor)
            throw .system("cannot inspect an object file", error)
        }
        if let kind = Self.irregularKind(info.st_mode) {
            close(descriptor)
            throw .notAFile(kind)
        }
        guard Int64(info.st_size) == size else {
            close(descriptor)
            throw .wrongSize(actual: Int64(info.st_size), recorded: size)
        }
        self.path = path
        self.size = size
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The whole object (`pread(2)` up to the recorded size).
    /// - Throws: ``ObjectFileProblem`` when it ends early or the disk fails.
    func readAll() throws(ObjectFileProblem) -> [UInt8] {
        let count = Int(size)
        var failure: ObjectFileProblem?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(ObjectFileProblem) {
                try read(into: UnsafeMutableRawBufferPointer(buffer), at: 0)
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Feeds the object to `hasher` a buffer at a time, up to the recorded size.
    func hash(into hasher: SHA256Hasher, buffer: UnsafeMutableRawBufferPointer) throws(ObjectFileProblem) {
        var offset: Int64 = 0
        while offset < size {
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), size - offset))])
            try read(into: chunk, at: offset)
            hasher.update(UnsafeRawBufferPointer(chunk))
            offset += Int64(chunk.count)
        }
    }

    /// Fills `buffer` from `offset` (`pread(2)`, retrying `EINTR` and short reads); the caller
    /// keeps `offset + buffer.count` within ``size``.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(ObjectFileProblem) {
        var filled = 0
        while filled < buffer.count {
            let count: Int
            do {
                count = try valueOrErrno {
                    pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
                }
            } catch {
                if error.rawValue == EIO { throw .unreadable(error) }
                throw .system("cannot read an object file", error)
            }
            guard count > 0 else { throw .shrank(to: offset + Int64(filled), recorded: size) }
            filled += count
        }
    }

    private static func openingProblem(_ error: Errno, path: String) -> ObjectFileProblem {
        switch error.rawValue {
        case ENOENT, ENOTDIR: return .missing
        case ELOOP: return .notAFile("a symbolic link")
        case ENXIO, ENODEV: return .notAFile("a socket or a device")
        case EIO: return .unreadable(error)
        default:
            // A device on a `nodev` file system, or a FIFO or folder the permissions close, is
            // refused with EACCES: what is there, not the refusal, is the problem.
            var info = stat()
            if lstat(path, &info) == 0, let kind = irregularKind(info.st_mode) { return .notAFile(kind) }
            return .system("cannot open an object file", error)
        }
    }

    /// What a mode describes when it is not a regular file.
    private static func irregularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "of an unknown kind"
        }
    }
}
