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
///
/// Each folder is checked when a read-write cache opens (``create()``): a symbolic link or
/// anything but a folder there is refused with ``CacheError/Code/foreignEntry``. Every listing
/// and removal inside them goes through the opened folder (``open(_:)``, `OpenFolder`), never
/// following a link, so one swapped in after the open is refused too.
struct CacheLayout: Sendable {
    let root: String

    /// The folders of a cache (each directly in it).
    enum Part: String, CaseIterable {
        case objects, staging, quarantine, downloads

        /// What the cache keeps there, for messages.
        var role: String {
            switch self {
            case .objects: "its objects"
            case .staging: "installs in progress"
            case .quarantine: "quarantined objects"
            case .downloads: "partial downloads"
            }
        }
    }

    var index: String { root + "/index.sqlite" }
    var objects: String { path(.objects) }
    var staging: String { path(.staging) }
    var quarantine: String { path(.quarantine) }
    var downloads: String { path(.downloads) }
    func path(_ part: Part) -> String { root + "/" + part.rawValue }
    var sweepLock: String { root + "/sweep.lock" }
    /// The lock over ``sweepLock``.
    var sweep: SweepLock { SweepLock(path: sweepLock) }

    func objectPath(_ digest: Digest) -> String {
        let hex = digest.hex
        return objects + "/" + hex.prefix(2) + "/" + hex.dropFirst(2)
    }

    /// The index's path for a read-only open, which must not create it: nil when there is no
    /// folder or no index in it (yet).
    /// - Throws: ``CacheError/Code/cacheNotFound`` when the path is something other than a
    ///   folder; ``CacheError/Code/foreignEntry`` when the index (or its log) is not a file.
    func existingIndex() throws(CacheError) -> String? {
        guard let status = try? FileStatus.of(root) else { return nil }
        guard status.kind == .folder else {
            throw CacheError(.cacheNotFound, "this is not a folder, so not a cache; nothing was changed", path: root)
        }
        return try checkIndexFiles() ? index : nil
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

    /// Creates what is missing: the folders, all 256 object shards (so installs never need to)
    /// and the lock file; and checks that each is what Larder makes, never following a symbolic
    /// link (see ``CacheLayout/open(_:)``) and the index files (``checkIndexFiles()``).
    /// - Throws: ``CacheError/Code/foreignEntry`` naming the first that is not, with nothing
    ///   made through it.
    func create() throws(CacheError) {
        do { try Folder.create(root) } catch {
            // Under a file, or in a folder that is not there: no such cache (as for a path
            // that is a file); a full disk or one the user may not write: as always.
            var failure = CacheError.fileSystem("cannot create the cache folder", error, path: root)
            if error == .notAFolder || error == .notFound { failure.code = .cacheNotFound }
            throw failure
        }
        for part in Part.allCases {
            // mkdir(2) never follows a link: a planted one stays as it is and is refused next.
            do { try Folder.create(path(part)) } catch {
                throw CacheError.fileSystem("cannot create the cache folder", error, path: path(part))
            }
            let folder = try openExisting(part)
            if part == .objects { try createShards(in: folder) }
        }
        let kind: FileKind
        do {
            let lock = try FileDescriptor(opening: sweepLock, [.readWrite, .create, .noFollow, .nonBlocking])
            kind = try lock.status().kind
        } catch {
            if let found = try? FileStatus.ofLink(sweepLock).kind, found != .regular {
                throw CacheError.foreign(sweepLock, is: found, where: "its lock file")
            }
            throw CacheError(.storage, "cannot create the lock file: \(error)", path: sweepLock)
        }
        guard kind == .regular else { throw CacheError.foreign(sweepLock, is: kind, where: "its lock file") }
        _ = try checkIndexFiles()
    }

    /// Makes the object shards that are missing and refuses anything but a folder where one
    /// belongs: one listing of `objects/` (`d_type` says what each entry is), then `mkdirat`
    /// only for what is missing.
    private func createShards(in objects: borrowing OpenFolder) throws(CacheError) {
        var kinds: [String: FileKind] = [:]
        do { for entry in try objects.entries() { kinds[entry.name] = entry.kind } } catch {
            throw CacheError.fileSystem("cannot list the object store", error, path: objects.path)
        }
        for shard in Self.shards {
            switch kinds[shard] {
            case nil:
                do { try objects.createFolder(shard) } catch {
                    throw CacheError.fileSystem("cannot create the cache folder", error, path: objects.path(of: shard))
                }
            case .folder?: continue
            case let kind?: throw CacheError.foreign(objects.path(of: shard), is: kind, where: "a folder of objects")
            }
        }
    }

    /// The 256 shard names, `00` to `ff`.
    static let shards: [String] = {
        let hex = Array("0123456789abcdef")
        return hex.flatMap { high in hex.map { low in String(high) + String(low) } }
    }()

    /// The index's files: `index.sqlite` and SQLite's `-wal`, `-shm` and `-journal` beside it,
    /// each looked at without following a link (`lstat(2)`) before SQLite opens anything, so a
    /// FIFO there (whose open blocks until a writer comes), a device or a symbolic link is
    /// refused instead of opened.
    /// - Returns: whether the index exists.
    /// - Throws: ``CacheError/Code/foreignEntry`` naming the first that is neither missing nor
    ///   a regular file.
    func checkIndexFiles() throws(CacheError) -> Bool {
        var exists = false
        for path in [index, index + "-wal", index + "-shm", index + "-journal"] {
            let status: FileStatus
            do { status = try FileStatus.ofLink(path) } catch where error == .notFound {
                continue
            } catch {
                throw CacheError.fileSystem("cannot look at the cache index", error, path: path)
            }
            guard status.kind == .regular else { throw CacheError.foreign(path, is: status.kind, where: "its index") }
            if path == index { exists = true }
        }
        return exists
    }
}
