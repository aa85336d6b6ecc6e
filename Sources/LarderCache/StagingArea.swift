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
/// moved into place. An ``InstallSession`` holds the sweep lock shared for as long as its
/// staging folders exist, so a ``MaintenanceSession`` knows every staging folder belongs to a
/// process that died (or to an install that failed after moving objects into place, which
/// keeps its folder on purpose), and may remove them all, after recounting the stored totals.
final class StagingArea {
    let path: String
    /// Its name in `staging/`.
    private let name: String
    /// `staging/`, opened when this was made: the folder is removed through it.
    private let staging: OpenFolder
    private let folder: OpenFolder
    private var count = 0
    /// Every file created or adopted here, for ``Durability/perFile``'s flushes.
    private(set) var files: [String] = []
    private var removed = false
    private var kept = false

    init(layout: CacheLayout) throws(CacheError) {
        staging = try layout.openExisting(.staging)
        do { name = try staging.createUniqueFolder(prefix: "install-") } catch {
            throw CacheError.fileSystem("cannot create a staging folder", error, path: layout.staging)
        }
        path = staging.path(of: name)
        do { folder = try staging.folder(name) } catch {
            Self.removeTree(name, in: staging)
            throw CacheError(.storage, "cannot open the staging folder: \(error)", path: path)
        }
    }

    deinit { remove() }

    /// A new file for one object, open for writing.
    func createFile() throws(CacheError) -> StagedFile {
        count += 1
        let file = "\(path)/\(count)"
        let descriptor: FileDescriptor
        do { descriptor = try folder.openFile(String(count), [.writeOnly, .create, .exclusive], permissions: 0o444) } catch {
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

    /// Makes everything staged so far in `areas` durable (on Linux one `syncfs(2)` for the
    /// whole batch instead of one `fsync` per object; see ``Durability``).
    /// - Parameter durability: the path to take (the process's, but for tests).
    static func synchronize(_ areas: [StagingArea], durability: Durability = .current) throws(CacheError) {
        guard let anchor = areas.first else { return }
        try durability.synchronize(files: areas.flatMap(\.files), folders: areas.map(\.path), anchor: anchor.folder.descriptor)
    }

    /// Makes the moves of staged files out of `areas` into `folders` durable (both folders'
    /// entries).
    static func synchronizeMoves(from areas: [StagingArea], into folders: Set<String>) throws(CacheError) {
        guard let anchor = areas.first else { return }
        try Durability.current.synchronize(files: [], folders: folders.sorted() + areas.map(\.path), anchor: anchor.folder.descriptor)
    }

    /// Leaves the folder in place when this is released: it tells whoever next holds the
    /// sweep lock exclusively that objects were moved into the store and not accounted for.
    func keepForRecovery() { kept = true }

    /// Deletes the folder and what is left in it, unless it is kept for recovery.
    func remove() {
        guard !removed, !kept else { return }
        removed = true
        Self.removeTree(name, in: staging)
    }

    /// Whether anything is in `staging/`: what a killed or failed install or eviction left.
    static func hasLeftovers(layout: CacheLayout) throws(CacheError) -> Bool {
        guard let staging = try layout.open(.staging) else { return false }
        do { return try !staging.entries().isEmpty } catch {
            throw CacheError.fileSystem("cannot list the staging folder", error, path: staging.path)
        }
    }

    /// Removes every staging folder (and the eviction marker), through the opened `staging/`
    /// (a link in it goes, not what it points at). Call only in a ``MaintenanceSession``.
    static func removeAll(layout: CacheLayout) throws(CacheError) {
        guard let staging = try layout.open(.staging) else { return }
        let entries: [Folder.Entry]
        do { entries = try staging.entries() } catch {
            throw CacheError.fileSystem("cannot list the staging folder", error, path: staging.path)
        }
        for entry in entries {
            do { try staging.removeEntry(entry) } catch {
                // What cannot be removed stays a leftover, which the next process to hold the
                // sweep lock exclusively removes again.
            }
        }
    }

    /// Removes a staging folder and what is in it, folders too (an adopted download that
    /// turned out to be a folder). What cannot be removed stays a leftover, as above.
    private static func removeTree(_ name: String, in staging: borrowing OpenFolder) {
        do { try staging.removeEntry(name) } catch {
            // Left for recovery, as above.
        }
    }
}
