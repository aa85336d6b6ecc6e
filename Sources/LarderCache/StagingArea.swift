import LarderFormat
import LarderSystem

/// A new file in a staging folder, open for writing; closed when dropped.
struct StagedFile: ~Copyable {
    let path: String
    let descriptor: FileDescriptor

    /// Writes all of `bytes`.
    /// - Throws: ``FormatError/Code/noSpace`` when the disk is full, ``FormatError/Code/io``
    ///   otherwise, naming the file.
    func write(_ bytes: UnsafeRawBufferPointer) throws(FormatError) {
        do { try descriptor.writeAll(bytes) } catch {
            throw FormatError(error.isNoSpace ? .noSpace : .io, "cannot write a staged object: \(error)", path: path)
        }
    }
}

/// A private folder under `staging/` where one install writes its new objects before they are
/// moved into place. Installs hold the sweep lock shared for as long as their staging folder
/// exists, so whoever holds it exclusively knows every staging folder belongs to a process
/// that died (or to an install that failed after moving objects into place, which keeps its
/// folder on purpose), and may remove them all, after recounting the stored totals.
final class StagingArea {
    let path: String
    private let descriptor: FileDescriptor
    private var count = 0
    /// Every file created or adopted here, for ``Durability/perFile``'s flushes.
    private var files: [String] = []
    private var removed = false
    private var kept = false

    init(layout: CacheLayout) throws(CacheError) {
        do { path = try Folder.createUnique("\(layout.staging)/install-XXXXXX") } catch {
            throw CacheError.fileSystem("cannot create a staging folder", error, path: layout.staging)
        }
        do { descriptor = try .openFolder(path) } catch {
            Self.removeTree(path)
            throw CacheError(.storage, "cannot open the staging folder: \(error)", path: path)
        }
    }

    deinit { remove() }

    /// A new file for one object, open for writing.
    func createFile() throws(CacheError) -> StagedFile {
        count += 1
        let file = "\(path)/\(count)"
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor(opening: file, [.writeOnly, .create, .exclusive], permissions: 0o444) } catch {
            throw CacheError.fileSystem("cannot create a staged object", error, path: file)
        }
        files.append(file)
        return StagedFile(path: file, descriptor: descriptor)
    }

    /// Moves a file of the same file system into this folder (read-only, like every object).
    /// - Returns: its new path, or nil when it is on another file system (copy it instead).
    func adopt(_ source: String) throws(CacheError) -> String? {
        count += 1
        let file = "\(path)/\(count)"
        do { try File.rename(source, to: file) } catch {
            if error == .crossDevice { return nil }
            throw CacheError.fileSystem("cannot move a downloaded object into staging", error, path: source)
        }
        files.append(file)
        // Read-only like every object, if it is a file: chmod follows a planted symbolic link
        // (to a file of anyone's), and the check that refuses it comes next. Nothing but this
        // install writes in its staging folder (0700), so what lstat saw stays.
        if (try? FileStatus.ofLink(file).kind) == .regular {
            do { try File.setPermissions(file, 0o444) } catch {
                // As before: the object is checked next and stays in this private folder.
            }
        }
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
        !Folder.names(layout.staging).isEmpty
    }

    /// Creates `staging/<name>`, an empty file that says an operation holding the sweep lock
    /// exclusively is between changing the index and finishing on disk, and makes it durable
    /// (the index change that follows may be); remove it with ``removeMarker(_:layout:)`` when
    /// done. If the process dies first, it is a leftover.
    static func createMarker(_ name: String, layout: CacheLayout) throws(CacheError) {
        let path = layout.staging + "/" + name
        do { try FileDescriptor(opening: path, [.writeOnly, .create]).close() } catch {
            throw CacheError.fileSystem("cannot create a marker", error, path: path)
        }
        let folder: FileDescriptor
        do { folder = try .openFolder(layout.staging) } catch {
            throw CacheError(.storage, "cannot open the staging folder: \(error)", path: layout.staging)
        }
        do { try folder.synchronize() } catch { throw CacheError(.storage, "cannot make a marker durable: \(error)", path: path) }
    }

    static func removeMarker(_ name: String, layout: CacheLayout) throws(CacheError) {
        let path = layout.staging + "/" + name
        do { try File.remove(path) } catch { throw CacheError(.storage, "cannot remove a marker: \(error)", path: path) }
    }

    /// Removes every staging folder. Call only while holding the sweep lock exclusively.
    static func removeAll(layout: CacheLayout) {
        for name in Folder.names(layout.staging) {
            let path = layout.staging + "/" + name
            do { try File.remove(path) } catch { removeTree(path) }  // a stray file, or a staging folder
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
