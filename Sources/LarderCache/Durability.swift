import Foundation
import LarderSystem

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

    /// TEST ONLY, for the power-loss explorer's self-test (`Tools/powerloss.sh --skip-syncs`):
    /// with `LARDER_TEST_ONLY_SKIP_SYNCS=1` in the environment, the cache skips every `syncfs`
    /// and `fsync` of its own (SQLite's are its own business), so installs are not durable and
    /// the explorer must find crash states that lose them. Says so on standard error, once per
    /// process, the first time it is read.
    package static let skipsSynchronization: Bool = {
        guard ProcessInfo.processInfo.environment["LARDER_TEST_ONLY_SKIP_SYNCS"] == "1" else { return false }
        FileHandle.standardError.write(
            Data(
                ("larder: WARNING: LARDER_TEST_ONLY_SKIP_SYNCS=1: this process skips every fsync and syncfs of the cache, "
                    + "so installs are NOT durable. It exists only for the power-loss explorer's self-test; never set it elsewhere.\n").utf8))
        return true
    }()

    /// Moves `from` to `to` only if nothing is at `to`.
    /// - Throws: ``Errno/exists`` when something is at `to`, or another ``Errno``.
    func renameNoReplace(_ from: String, _ to: String) throws(Errno) {
        switch self {
        case .fileSystem:
            try File.renameNoReplace(from, to: to)
        case .perFile:
            #if os(Linux)
            // link(2) fails with EEXIST when `to` exists; a crash between it and the unlink
            // leaves the staged name too, which the staging leftovers' sweep removes.
            do throws(Errno) {
                try File.link(from, to: to)
                do throws(Errno) { try File.remove(from) } catch {
                    // The staged name stays behind with its staging folder, which goes anyway.
                }
                return
            } catch where error != .notPermitted && error != .isFolder {
                throw error
            } catch {
                // A folder cannot be linked (a planted one, quarantined): rename replaces only
                // an empty folder, so check first.
                if (try? FileStatus.ofLink(to)) != nil { throw Errno.exists }
                try File.rename(from, to: to)
            }
            #else
            try File.renameNoReplace(from, to: to)
            #endif
        }
    }

    /// Starts writing a finished file's pages (``fileSystem`` only; a no-op otherwise).
    func startWriteback(_ file: borrowing FileDescriptor) {
        guard self == .fileSystem else { return }
        // The batch's flush is what makes the file durable; a failure here only leaves it
        // more to do.
        file.startWriteback()
    }

    /// Makes the files at `paths`, then the folders at `folders`, durable: one `syncfs` of the
    /// file system holding `anchor` (``fileSystem``), or an `fsync` of each (``perFile``).
    func synchronize(files paths: [String], folders: [String], anchor: borrowing FileDescriptor) throws(CacheError) {
        guard !Self.skipsSynchronization else { return }
        switch self {
        case .fileSystem:
            do { try anchor.synchronizeFileSystem() } catch { throw CacheError.fileSystem("syncfs failed", error, path: folders.first) }
        case .perFile:
            for path in paths { try Self.flush(path, [.noFollow, .nonBlocking]) }
            for folder in folders { try Self.flush(folder, [.folder, .noFollow, .nonBlocking]) }
        }
    }

    private static func flush(_ path: String, _ options: OpenOptions) throws(CacheError) {
        let file: FileDescriptor
        do { file = try FileDescriptor(opening: path, options) } catch {
            throw CacheError.fileSystem("cannot open to flush it", error, path: path)
        }
        do { try file.synchronize() } catch { throw CacheError.fileSystem("fsync failed", error, path: path) }
    }
}
