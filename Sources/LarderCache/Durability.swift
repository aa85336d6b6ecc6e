import CLarderSystem
import Foundation
import LarderFormat
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the cache makes a batch of writes durable and moves files into place without replacing
/// anything. The crash-safety protocol is the same either way; only the system calls differ.
package enum Durability: String, Sendable, CaseIterable {
    /// Linux: one `syncfs(2)` per batch, `renameat2(RENAME_NOREPLACE)`, and `sync_file_range`
    /// to start each object's writeback while the archive is still being read.
    case fileSystem = "filesystem"
    /// POSIX only, what Apple platforms have: `fsync` (`F_FULLFSYNC` on Apple platforms) of
    /// each file and each folder changed, and no-replace renames by `link(2)` then `unlink(2)`
    /// (`renamex_np(RENAME_EXCL)` on Apple platforms).
    case perFile = "posix"

    /// The path this process takes: ``perFile`` on Apple platforms, or on Linux when built with
    /// `-Xswiftc -DLARDER_POSIX_DURABILITY`, or when `LARDER_DURABILITY=posix` is set (how the
    /// tests run the cache's crash, hostile and concurrency suites on the path Apple platforms
    /// take); ``fileSystem`` otherwise.
    package static let current: Durability = {
        #if os(Linux) && !LARDER_POSIX_DURABILITY
        if let name = ProcessInfo.processInfo.environment["LARDER_DURABILITY"], let chosen = Durability(rawValue: name) {
            return chosen
        }
        return .fileSystem
        #else
        return .perFile
        #endif
    }()

    /// Moves `from` to `to` only if nothing is at `to`; sets `errno` to `EEXIST` otherwise.
    /// - Returns: 0 or -1, like the system call.
    func renameNoReplace(_ from: String, _ to: String) -> Int32 {
        switch self {
        case .fileSystem:
            return larder_rename_noreplace(from, to)
        case .perFile:
            #if os(Linux)
            // link(2) fails with EEXIST when `to` exists; a crash between it and the unlink
            // leaves the staged name too, which the staging leftovers' sweep removes.
            if link(from, to) == 0 {
                unlink(from)
                return 0
            }
            guard errno == EPERM || errno == EISDIR else { return -1 }
            // A folder cannot be linked (a planted one, quarantined): rename replaces only an
            // empty folder, so check first.
            var info = stat()
            if lstat(to, &info) == 0 {
                errno = EEXIST
                return -1
            }
            return rename(from, to)
            #else
            return larder_rename_noreplace(from, to)
            #endif
        }
    }

    /// Starts writing a finished file's pages (``fileSystem`` only; a no-op otherwise).
    func startWriteback(_ descriptor: Int32) {
        guard self == .fileSystem else { return }
        // The batch's flush is what makes the file durable; a failure here only leaves it
        // more to do.
        _ = larder_start_writeback(descriptor)
    }

    /// Makes the files at `paths`, then the folders at `folders`, durable: one `syncfs` of the
    /// file system holding `anchor` (``fileSystem``), or an `fsync` of each (``perFile``).
    func synchronize(files paths: [String], folders: [String], anchor: Int32) throws(CacheError) {
        switch self {
        case .fileSystem:
            guard larder_syncfs(anchor) == 0 else { throw CacheError.fileSystem("syncfs failed", Errno.current, path: folders.first) }
        case .perFile:
            for path in paths { try Self.flush(path, flags: O_RDONLY) }
            for folder in folders { try Self.flush(folder, flags: O_RDONLY | O_DIRECTORY) }
        }
    }

    private static func flush(_ path: String, flags: Int32) throws(CacheError) {
        let descriptor = open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { throw CacheError.fileSystem("cannot open to flush it", Errno.current, path: path) }
        defer { close(descriptor) }
        guard larder_full_fsync(descriptor) == 0 else { throw CacheError.fileSystem("fsync failed", Errno.current, path: path) }
    }
}
