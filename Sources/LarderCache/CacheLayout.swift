import LarderFormat
import LarderSystem

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
    /// The lock over ``sweepLock``.
    var sweep: SweepLock { SweepLock(path: sweepLock) }

    func objectPath(_ digest: Digest) -> String {
        let hex = digest.hex
        return objects + "/" + hex.prefix(2) + "/" + hex.dropFirst(2)
    }

    /// The index's path for a read-only open, which must not create it: nil when there is no
    /// folder or no index in it (yet).
    /// - Throws: ``CacheError/Code/cacheNotFound`` when the path is something other than a folder.
    func existingIndex() throws(CacheError) -> String? {
        guard let status = try? FileStatus.of(root) else { return nil }
        guard status.kind == .folder else {
            throw CacheError(.cacheNotFound, "this is not a folder, so not a cache; nothing was changed", path: root)
        }
        return File.exists(index) ? index : nil
    }

    /// Throws ``CacheError/Code/readOnly`` when the folder or its index exists but this process
    /// may not write it (`access(2)`: a read-only file system, another user's cache).
    func checkWritable() throws(CacheError) {
        for path in [root, index] {
            do { try File.checkWritable(path) } catch where error.isNotWritable {
                throw CacheError(.readOnly, Self.notWritable + " (\(error))", path: path)
            } catch {
                continue  // missing: created next
            }
        }
    }

    static let notWritable =
        "the cache cannot be written here (a read-only file system, or another user's cache); open it read-only to look inside"

    /// Creates the folders that are missing, all 256 object shards included, so installs never
    /// need to.
    func create() throws(CacheError) {
        // Folders are made in order and the lock file last: when both the last shard and the
        // lock exist, an earlier open made everything (saves 260 mkdir calls per open).
        if File.exists(objects + "/ff"), File.exists(sweepLock) { return }
        let hex = Array("0123456789abcdef")
        let shards = hex.flatMap { high in hex.map { low in objects + "/" + String(high) + String(low) } }
        for folder in [root, objects, staging, quarantine, downloads] + shards {
            do { try Folder.create(folder) } catch {
                // Under a file, or in a folder that is not there: no such cache (as for a path
                // that is a file); a full disk or one the user may not write: as always.
                var failure = CacheError.fileSystem("cannot create the cache folder", error, path: folder)
                if error == .notAFolder || error == .notFound { failure.code = .cacheNotFound }
                throw failure
            }
        }
        do { try FileDescriptor(opening: sweepLock, [.readWrite, .create]).close() } catch {
            throw CacheError(.storage, "cannot create the lock file: \(error)", path: sweepLock)
        }
    }
}
