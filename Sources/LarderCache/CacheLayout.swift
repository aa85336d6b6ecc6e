import LarderFormat
#if canImport(Glibc)
import Glibc
#endif

/// Where things live in a cache folder:
///
/// ```
/// index.sqlite        the index (WAL mode): bundles, their files (object and size), scopes,
///                     leases, quarantined objects, counters (stored totals among them)
/// objects/ab/cdef…    immutable objects, named by their SHA-256, sharded by the first byte;
///                     the store itself: no index row per object
/// staging/            one folder per install in progress; what a killed install or eviction
///                     left is removed (after a recount) on open, eviction or sweep
/// quarantine/         objects that failed verification, kept for inspection
/// downloads/          partial downloads by bundle: <hex>.lock (one downloader at a time),
///                     <hex>.tar.gz.part (+ .etag), <hex>.objects/; kept to resume
/// sweep.lock          shared by installers, exclusive for eviction and sweeping
/// ```
struct CacheLayout: Sendable {
    let root: String

    var index: String { root + "/index.sqlite" }
    var objects: String { root + "/objects" }
    var staging: String { root + "/staging" }
    var quarantine: String { root + "/quarantine" }
    var downloads: String { root + "/downloads" }
    var sweepLock: String { root + "/sweep.lock" }

    func objectPath(_ digest: Digest) -> String {
        let hex = digest.hex
        return objects + "/" + hex.prefix(2) + "/" + hex.dropFirst(2)
    }

    /// The index's path for a read-only open, which must not create it: nil when there is no
    /// folder or no index in it (yet).
    /// - Throws: ``CacheError/Code/cacheNotFound`` when the path is something other than a folder.
    func existingIndex() throws(CacheError) -> String? {
        var status = stat()
        guard stat(root, &status) == 0 else { return nil }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw CacheError(.cacheNotFound, "this is not a folder, so not a cache; nothing was changed", path: root)
        }
        return stat(index, &status) == 0 ? index : nil
    }

    /// Throws ``CacheError/Code/readOnly`` when the folder or its index exists but this process
    /// may not write it (`access(2)`: a read-only file system, another user's cache).
    func checkWritable() throws(CacheError) {
        for path in [root, index] where access(path, W_OK) != 0 {
            let error = Errno.current
            guard [EROFS, EACCES, EPERM].contains(error.rawValue) else { continue }  // missing: created next
            throw CacheError(.readOnly, Self.notWritable + " (\(error))", path: path)
        }
    }

    static let notWritable =
        "the cache cannot be written here (a read-only file system, or another user's cache); open it read-only to look inside"

    /// Creates the folders that are missing, all 256 object shards included, so installs never
    /// need to.
    func create() throws(CacheError) {
        // Folders are made in order and the lock file last: when both the last shard and the
        // lock exist, an earlier open made everything (saves 260 mkdir calls per open).
        var status = stat()
        if stat(objects + "/ff", &status) == 0, stat(sweepLock, &status) == 0 { return }
        let hex = Array("0123456789abcdef")
        let shards = hex.flatMap { high in hex.map { low in objects + "/" + String(high) + String(low) } }
        for folder in [root, objects, staging, quarantine, downloads] + shards {
            if mkdir(folder, 0o755) != 0 && errno != EEXIST {
                throw CacheError(.storage, "cannot create the cache folder: \(Errno.current)", path: folder)
            }
        }
        let lock = open(sweepLock, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw CacheError(.storage, "cannot create the lock file: \(Errno.current)", path: sweepLock) }
        close(lock)
    }
}

/// `flock(2)` on a file, released on `deinit` (and by the kernel if the process dies).
final class FileLock: Sendable {
    private let descriptor: Int32

    enum Mode { case shared, exclusive }

    /// Opens (creating) the lock file and takes the lock, waiting if `wait`.
    /// - Returns: nil when `wait` is false and another process holds a conflicting lock.
    static func acquire(_ path: String, _ mode: Mode, wait: Bool = true) throws(CacheError) -> FileLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CacheError(.storage, "cannot open lock file: \(Errno.current)", path: path) }
        return try acquire(descriptor: fd, mode, wait: wait, path: path)
    }

    /// Takes the lock on an open descriptor, which the lock then owns.
    static func acquire(descriptor fd: Int32, _ mode: Mode, wait: Bool, path: String) throws(CacheError) -> FileLock? {
        let operation = (mode == .shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
        while flock(fd, operation) != 0 {
            if errno == EINTR { continue }
            let error = Errno.current
            close(fd)
            if error.rawValue == EWOULDBLOCK { return nil }
            throw CacheError(.storage, "cannot lock: \(error)", path: path)
        }
        return FileLock(descriptor: fd)
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }
}
