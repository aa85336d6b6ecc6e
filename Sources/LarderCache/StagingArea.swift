import CLarderSystem
import LarderFormat
#if canImport(Glibc)
import Glibc
#endif

/// A private folder under `staging/` where one install writes its new objects before they are
/// moved into place. Installs hold the sweep lock shared for as long as their staging folder
/// exists, so whoever holds it exclusively knows every staging folder belongs to a process
/// that died (or to an install that failed after moving objects into place, which keeps its
/// folder on purpose), and may remove them all, after recounting the stored totals.
final class StagingArea {
    let path: String
    private let descriptor: Int32
    private var count = 0
    /// Every file created or adopted here, for ``Durability/perFile``'s flushes.
    private var files: [String] = []
    private var removed = false
    private var kept = false

    init(layout: CacheLayout) throws(CacheError) {
        var template = Array("\(layout.staging)/install-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CacheError.fileSystem("cannot create a staging folder", Errno.current, path: layout.staging)
        }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = Errno.current
            rmdir(path)
            throw CacheError(.storage, "cannot open the staging folder: \(error)", path: path)
        }
    }

    deinit {
        remove()
        close(descriptor)
    }

    /// A new file for one object, open for writing.
    func createFile() throws(CacheError) -> (descriptor: Int32, path: String) {
        count += 1
        let file = "\(path)/\(count)"
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
        guard fd >= 0 else { throw CacheError.fileSystem("cannot create a staged object", Errno.current, path: file) }
        files.append(file)
        return (fd, file)
    }

    /// Moves a file of the same file system into this folder (read-only, like every object).
    /// - Returns: its new path, or nil when it is on another file system (copy it instead).
    func adopt(_ source: String) throws(CacheError) -> String? {
        count += 1
        let file = "\(path)/\(count)"
        guard rename(source, file) == 0 else {
            if errno == EXDEV { return nil }
            throw CacheError.fileSystem("cannot move a downloaded object into staging", Errno.current, path: source)
        }
        files.append(file)
        // Read-only like every object, if it is a file: chmod follows a planted symbolic link
        // (to a file of anyone's), and the check that refuses it comes next. Nothing but this
        // install writes in its staging folder (0700), so what lstat saw stays.
        var info = stat()
        if lstat(file, &info) == 0 && info.st_mode & S_IFMT == S_IFREG { chmod(file, 0o444) }
        return file
    }

    /// Makes everything staged so far durable (on Linux `syncfs(2)`: one flush for the whole
    /// batch instead of one `fsync` per object; see ``Durability``).
    func synchronize() throws(CacheError) {
        try Durability.current.synchronize(files: files, folders: [path], anchor: descriptor)
    }

    /// Makes the moves of staged files into `folders` durable (their folder entries).
    func synchronizeMoves(into folders: Set<String>) throws(CacheError) {
        try Durability.current.synchronize(files: [], folders: folders.sorted() + [path], anchor: descriptor)
    }

    /// Leaves the folder in place when this is released: it tells whoever next holds the
    /// sweep lock exclusively that objects were moved into the store and not accounted for.
    func keepForRecovery() { kept = true }

    /// Deletes the folder and what is left in it, unless it is kept for recovery.
    func remove() {
        guard !removed, !kept else { return }
        removed = true
        Self.removeTree(path)
    }

    /// Whether anything is in `staging/`: what a killed or failed install or eviction left.
    static func hasLeftovers(layout: CacheLayout) -> Bool {
        !folderNames(layout.staging).isEmpty
    }

    /// Creates `staging/<name>`, an empty file that says an operation holding the sweep lock
    /// exclusively is between changing the index and finishing on disk, and makes it durable
    /// (the index change that follows may be); remove it with ``removeMarker(_:layout:)`` when
    /// done. If the process dies first, it is a leftover.
    static func createMarker(_ name: String, layout: CacheLayout) throws(CacheError) {
        let path = layout.staging + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CacheError.fileSystem("cannot create a marker", Errno.current, path: path) }
        close(fd)
        let folder = open(layout.staging, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw CacheError(.storage, "cannot open the staging folder: \(Errno.current)", path: layout.staging) }
        defer { close(folder) }
        guard larder_full_fsync(folder) == 0 else { throw CacheError(.storage, "cannot make a marker durable: \(Errno.current)", path: path) }
    }

    static func removeMarker(_ name: String, layout: CacheLayout) throws(CacheError) {
        let path = layout.staging + "/" + name
        if unlink(path) != 0 && errno != ENOENT {
            throw CacheError(.storage, "cannot remove a marker: \(Errno.current)", path: path)
        }
    }

    /// Removes every staging folder. Call only while holding the sweep lock exclusively.
    static func removeAll(layout: CacheLayout) {
        for name in folderNames(layout.staging) {
            let path = layout.staging + "/" + name
            if unlink(path) != 0 { removeTree(path) }  // a stray file, or a staging folder
        }
    }

    /// Removes a staging folder and what is in it, folders too (an adopted download that
    /// turned out to be a folder). What cannot be removed stays a leftover, which the next
    /// process to hold the sweep lock exclusively removes again.
    private static func removeTree(_ path: String) {
        do {
            try LarderCache.removeTree(path)
        } catch {
            // Left for recovery, as above.
        }
    }
}
