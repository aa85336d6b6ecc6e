import LarderFormat
import LarderSystem

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
    private let file: FileDescriptor

    /// Opens and checks `path` (`open(2)`, `fstat(2)`).
    /// - Parameter size: the object's size as the index or the manifest records it.
    /// - Throws: ``ObjectFileProblem``.
    init(opening path: String, size: Int64) throws(ObjectFileProblem) {
        let file: FileDescriptor
        do { file = try FileDescriptor(opening: path, [.noFollow, .nonBlocking, .noControllingTerminal]) } catch {
            throw Self.openingProblem(error, path: path)
        }
        let status: FileStatus
        do { status = try file.status() } catch { throw .system("cannot inspect an object file", error) }
        guard status.kind == .regular else { throw .notAFile(status.kind.description) }
        guard status.size == size else { throw .wrongSize(actual: status.size, recorded: size) }
        self.path = path
        self.size = size
        self.file = file
    }

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
                count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), at: offset + Int64(filled))
            } catch {
                if error == .ioError { throw .unreadable(error) }
                throw .system("cannot read an object file", error)
            }
            guard count > 0 else { throw .shrank(to: offset + Int64(filled), recorded: size) }
            filled += count
        }
    }

    private static func openingProblem(_ error: Errno, path: String) -> ObjectFileProblem {
        switch error {
        case .notFound, .notAFolder: return .missing
        case .tooManyLinks: return .notAFile("a symbolic link")
        case .noSuchDevice, .noSuchDeviceOrAddress: return .notAFile("a socket or a device")
        case .ioError: return .unreadable(error)
        default:
            // A device on a `nodev` file system, or a FIFO or folder the permissions close, is
            // refused with EACCES: what is there, not the refusal, is the problem.
            if let kind = try? FileStatus.ofLink(path).kind, kind != .regular { return .notAFile(kind.description) }
            return .system("cannot open an object file", error)
        }
    }
}
