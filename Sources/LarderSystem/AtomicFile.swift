#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLarderSystem

/// A new file written through a temporary name in the same folder and moved into place only
/// when complete (`write(2)`, `fsync(2)`, `rename(2)` or `link(2)`, then `fsync` of the
/// folder), so a reader never sees part of it. Dropped without ``commit(to:replacing:)``, the
/// temporary file is removed.
public final class AtomicFile {
    /// Which step failed.
    public enum Step: Sendable {
        /// Creating the temporary file (`mkstemps(3)`); the path is the folder's.
        case create
        case write
        /// Flushing the file before the move (`fsync(2)`).
        case synchronize
        /// Moving it into place (`rename(2)`, `link(2)`): ``Errno/exists`` when not replacing.
        case move
        /// Flushing the folder after the move; the file is in place.
        case synchronizeFolder
    }

    /// A failed step, the path it concerned and the errno.
    public struct Failure: Error, Sendable {
        public var step: Step
        public var path: String
        public var errno: Errno
    }

    public let temporaryPath: String
    private var descriptor: FileDescriptor?
    private var committed = false
    /// False for a scratch file nobody relies on after a power cut: then nothing is flushed.
    private let durable: Bool

    /// Creates `<folder>/.<prefix>.<random>.tmp` exclusively, with permissions `mode` (a
    /// private key's 0600 holds from the first byte).
    /// - Parameter durable: false for scratch files (a staging folder removed after use):
    ///   ``commit(to:replacing:)`` then moves the file into place without flushing anything.
    /// - Throws: ``Failure`` (``Step/create``).
    public init(folder: String, prefix: String, mode: mode_t = 0o644, durable: Bool = true) throws(Failure) {
        self.durable = durable
        var template = Array("\(folder)/.\(prefix).XXXXXX.tmp".utf8CString)
        // Close-on-exec from the start: a process spawned meanwhile by another thread must not
        // inherit the file (and keep it, or its file system, busy).
        let fd = template.withUnsafeMutableBufferPointer { larder_make_temporary($0.baseAddress!, 4) }
        guard fd >= 0 else { throw Failure(step: .create, path: folder, errno: .current) }
        let descriptor = FileDescriptor(unsafeAdopting: fd)
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do { try descriptor.setPermissions(mode) } catch {
            unlink(temporaryPath)
            throw Failure(step: .create, path: folder, errno: error)
        }
        self.descriptor = .some(descriptor)
    }

    deinit {
        if !committed { unlink(temporaryPath) }
    }

    /// Appends all of `bytes` (``FileDescriptor/writeAll(_:)``).
    /// - Throws: ``Failure`` (``Step/write``).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        do { try descriptor?.writeAll(bytes) } catch { throw Failure(step: .write, path: temporaryPath, errno: error) }
    }

    /// Flushes the file to disk, moves it to `path` and flushes the folder entry.
    /// - Parameter replacing: false to fail with ``Errno/exists``, changing nothing, when
    ///   `path` exists (`link(2)`, then the temporary name is removed).
    /// - Throws: ``Failure``.
    public func commit(to path: String, replacing: Bool = true) throws(Failure) {
        guard let descriptor = descriptor.take() else { preconditionFailure("AtomicFile committed twice") }
        if durable {
            do { try descriptor.synchronize() } catch { throw Failure(step: .synchronize, path: temporaryPath, errno: error) }
        }
        do { try descriptor.close() } catch {
            // Written and flushed already: a failing close loses nothing.
        }
        do throws(Errno) {
            if replacing {
                try nothingOrErrno { rename(temporaryPath, path) }
            } else {
                try nothingOrErrno { link(temporaryPath, path) }
                unlink(temporaryPath)
            }
        } catch {
            throw Failure(step: .move, path: path, errno: error)
        }
        committed = true
        guard durable else { return }
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let folderDescriptor: FileDescriptor
        do { folderDescriptor = try .openFolder(folder.isEmpty ? "." : folder) } catch { return }  // as before: unopenable folders are not flushed
        do { try folderDescriptor.synchronize() } catch { throw Failure(step: .synchronizeFolder, path: folder, errno: error) }
    }
}
