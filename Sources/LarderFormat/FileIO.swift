import LarderSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file open for reading (`open(2)` with `O_RDONLY`); closed on `deinit`. Anything
/// else at the path (a FIFO, a folder, a device, a socket) is refused before a byte is read:
/// it is opened with `O_NONBLOCK`, so a FIFO with no writer cannot hang the open, and checked
/// with `fstat`.
public final class ReadableFile {
    public let path: String
    private let file: FileDescriptor

    /// The descriptor number, for `fstat` and the like; owned by this file.
    public var descriptor: Int32 { file.rawValue }

    /// - Parameters:
    ///   - followingLinks: false to refuse a symbolic link as the last component of
    ///     `path` (`O_NOFOLLOW`): a file whose bytes leave the machine (a publish) is read only
    ///     where it is, never from wherever a planted link points.
    ///   - path: the file to open for reading.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/io`` naming the path.
    public init(path: String, followingLinks: Bool = true) throws(FormatError) {
        self.path = path
        let file: FileDescriptor
        var options: OpenOptions = [.nonBlocking, .noControllingTerminal]
        if !followingLinks { options.insert(.noFollow) }
        do { file = try FileDescriptor(opening: path, options) } catch {
            if !followingLinks, error == .tooManyLinks {
                throw FormatError(.io, "not a regular file (a symbolic link); only the file itself is read, not what a link points at", path: path, cause: error)
            }
            throw FormatError(.io, "cannot open for reading: \(error)", path: path, cause: error)
        }
        let kind: FileKind
        do { kind = try file.status().kind } catch {
            throw FormatError(.io, "cannot stat: \(error)", path: path, cause: error)
        }
        guard kind == .regular else {
            throw FormatError(.io, "not a regular file (\(Self.describe(kind)))", path: path)
        }
        file.clearNonBlocking()
        self.file = file
    }

    private static func describe(_ kind: FileKind) -> String {
        switch kind {
        case .folder, .fifo, .socket: kind.description
        case .characterDevice, .blockDevice: "a device"
        case .regular, .symbolicLink, .unknown: "not a regular file"
        }
    }

    /// Reads up to `buffer.count` bytes (`read(2)`); 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FormatError) -> Int {
        do { return try file.read(into: buffer) } catch {
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

/// LarderSystem's `AtomicFile` with its failures as ``FormatError/Code/io``: a new file written through a temporary name in the same
/// folder and moved into place only when complete, so a reader never sees part of it. Dropped
/// without ``commit(to:replacing:)``, the temporary file is removed.
public final class AtomicFileWriter {
    private let file: AtomicFile

    public var temporaryPath: String { file.temporaryPath }

    /// Creates `<folder>/.<prefix>.<random>.tmp` exclusively, with permissions `mode` (a
    /// private key's 0600 holds from the first byte).
    /// - Parameters:
    ///   - durable: false for scratch files: nothing is flushed (`AtomicFile`).
    ///   - folder: the folder the file is committed in (a rename never crosses file systems).
    ///   - prefix: the start of the temporary name.
    ///   - mode: the permissions the file is created with.
    public init(folder: String, prefix: String, mode: mode_t = 0o644, durable: Bool = true) throws(FormatError) {
        do { file = try AtomicFile(folder: folder, prefix: prefix, mode: mode, durable: durable) } catch { throw Self.formatError(error) }
    }

    /// Writes all bytes, retrying short writes and `EINTR`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FormatError) {
        do { try file.write(bytes) } catch { throw Self.formatError(error) }
    }

    /// Flushes the file to disk, moves it to `path` and flushes the folder entry.
    /// - Parameters:
    ///   - replacing: false to fail with ``FormatError/Code/io`` (`EEXIST`), changing
    ///     nothing, when `path` exists (`link(2)`, then the temporary name is removed).
    ///   - path: the final name, in the folder the file was created in.
    public func commit(to path: String, replacing: Bool = true) throws(FormatError) {
        do { try file.commit(to: path, replacing: replacing) } catch { throw Self.formatError(error) }
    }

    /// The messages and code (``FormatError/Code/io``) this type has always given.
    private static func formatError(_ failure: AtomicFile.Failure) -> FormatError {
        let error = failure.errno
        let message =
            switch failure.step {
            case .create: "cannot create a file in the output folder: \(error)"
            case .write: "write failed: \(error)"
            case .synchronize: "fsync failed: \(error)"
            case .move where error == .exists: "exists already"
            case .move: "cannot move the finished file into place: \(error)"
            case .synchronizeFolder: "fsync of the folder failed: \(error)"
            }
        return FormatError(.io, message, path: failure.path)
    }
}
