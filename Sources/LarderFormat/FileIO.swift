#if canImport(Glibc)
import Glibc
#endif

/// A regular file open for reading (`open(2)` with `O_RDONLY | O_CLOEXEC`); closed on
/// `deinit`. Anything else at the path (a FIFO, a folder, a device, a socket) is refused
/// before a byte is read: it is opened with `O_NONBLOCK`, so a FIFO with no writer cannot hang
/// the open, and checked with `fstat`.
public final class ReadableFile {
    public let path: String
    public let descriptor: Int32

    /// - Throws: ``FormatError`` with code ``FormatError/Code/io`` naming the path.
    public init(path: String) throws(FormatError) {
        self.path = path
        do {
            descriptor = try valueOrErrno { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        } catch {
            throw FormatError(.io, "cannot open for reading: \(error)", path: path, cause: error)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = Errno.current
            close(descriptor)
            throw FormatError(.io, "cannot stat: \(error)", path: path, cause: error)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw FormatError(.io, "not a regular file (\(Self.kind(info.st_mode)))", path: path)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    deinit { close(descriptor) }

    /// Reads up to `buffer.count` bytes (`read(2)`); 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FormatError) -> Int {
        guard buffer.count > 0 else { return 0 }
        do {
            return try valueOrErrno { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
        } catch {
            throw FormatError(.io, "read failed: \(error)", path: path, cause: error)
        }
    }

    /// Reads the whole file, refusing files larger than `limit` bytes.
    public func readAll(limit: Int = 256 << 20) throws(FormatError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try FormatError.typed { try chunk.withUnsafeMutableBytes { try read(into: $0) } }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else {
                throw FormatError(.limitExceeded, "file is larger than \(limit) bytes", path: path)
            }
        }
    }
}

/// A new file written through a temporary name in the same folder and moved into place only
/// when complete (`write(2)`, `fsync(2)`, `rename(2)`, then `fsync` of the folder), so a reader
/// never sees part of it. Dropped without ``commit(to:)``, the temporary file is removed.
public final class AtomicFileWriter {
    public let temporaryPath: String
    private var descriptor: Int32
    private var committed = false

    /// Creates `<folder>/.<prefix>.<random>.tmp` exclusively, with permissions `mode` (a
    /// private key's 0600 holds from the first byte).
    public init(folder: String, prefix: String, mode: mode_t = 0o644) throws(FormatError) {
        var template = Array("\(folder)/.\(prefix).XXXXXX.tmp".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
        guard fd >= 0 else {
            throw FormatError(.io, "cannot create a file in the output folder: \(Errno.current)", path: folder)
        }
        descriptor = fd
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        fchmod(fd, mode)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { unlink(temporaryPath) }
    }

    /// Writes all bytes, retrying short writes and `EINTR`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FormatError) {
        var offset = 0
        while offset < bytes.count {
            do {
                offset += try valueOrErrno { Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset) }
            } catch {
                throw FormatError(.io, "write failed: \(error)", path: temporaryPath, cause: error)
            }
        }
    }

    /// Flushes the file to disk, moves it to `path` and flushes the folder entry.
    /// - Parameter replacing: false to fail with ``FormatError/Code/io`` (`EEXIST`), changing
    ///   nothing, when `path` exists (`link(2)`, then the temporary name is removed).
    public func commit(to path: String, replacing: Bool = true) throws(FormatError) {
        guard fsync(descriptor) == 0 else {
            throw FormatError(.io, "fsync failed: \(Errno.current)", path: temporaryPath)
        }
        close(descriptor)
        descriptor = -1
        if replacing {
            guard rename(temporaryPath, path) == 0 else {
                throw FormatError(.io, "cannot move the finished file into place: \(Errno.current)", path: path)
            }
        } else {
            guard link(temporaryPath, path) == 0 else {
                throw FormatError(.io, errno == EEXIST ? "exists already" : "cannot move the finished file into place: \(Errno.current)", path: path)
            }
            unlink(temporaryPath)
        }
        committed = true
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let folderDescriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            defer { close(folderDescriptor) }
            guard fsync(folderDescriptor) == 0 else {
                throw FormatError(.io, "fsync of the folder failed: \(Errno.current)", path: folder)
            }
        }
    }
}
