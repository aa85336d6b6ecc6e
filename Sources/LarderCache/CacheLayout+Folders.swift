import LarderFormat
import LarderSystem

/// The cache's folders, opened without following a symbolic link, and the object store walked
/// through them.
///
/// A cache restored from a backup or a CI artifact, or a folder others share, may hold a
/// symbolic link where Larder keeps a folder (`staging -> ~/x`, `objects/ab -> ~/x`): listing
/// and emptying through it would delete what it points at. So nothing here takes a path below
/// the cache's root: each folder is opened with `O_NOFOLLOW | O_DIRECTORY` and everything in it
/// is listed, looked at and removed relative to that descriptor (`OpenFolder`). A link found
/// there is refused with ``CacheError/Code/foreignEntry``, whether it was there when the cache
/// opened (``CacheLayout/create()`` refuses to open it) or swapped in later.
extension CacheLayout {
    /// Opens one of the cache's folders.
    /// - Returns: nil when it is missing (a purge by hand, or a read-only cache never made).
    /// - Throws: ``CacheError/Code/foreignEntry`` when something else is there.
    func open(_ part: Part) throws(CacheError) -> OpenFolder? {
        do { return try OpenFolder(path(part)) } catch where error == .notFound { return nil } catch {
            throw Self.openingFailure(error, path: path(part), what: part.role)
        }
    }

    /// Whether one of the cache's folders is there.
    /// - Throws: ``CacheError/Code/foreignEntry`` when something else is there.
    func exists(_ part: Part) throws(CacheError) -> Bool {
        guard let _ = try open(part) else { return false }
        return true
    }

    /// ``open(_:)`` for a folder that must be there (the cache made it when it opened).
    func openExisting(_ part: Part) throws(CacheError) -> OpenFolder {
        guard let folder = try open(part) else {
            throw CacheError(.storage, "a folder of the cache is missing; open the cache again to make it", path: path(part))
        }
        return folder
    }

    /// Opens the shard folder `name` (`00` to `ff`) of the object store.
    /// - Returns: nil when it is missing.
    static func openShard(_ name: String, in objects: borrowing OpenFolder) throws(CacheError) -> OpenFolder? {
        do { return try objects.folder(name) } catch where error == .notFound { return nil } catch {
            throw openingFailure(error, path: objects.path(of: name), what: "a folder of objects")
        }
    }

    /// The error for a folder that could not be opened: ``CacheError/Code/foreignEntry`` when
    /// something other than a folder is there (`ELOOP`: a symbolic link; `ENOTDIR`: anything else).
    static func openingFailure(_ error: Errno, path: String, what: String) -> CacheError {
        guard error == .tooManyLinks || error == .notAFolder else {
            return CacheError.fileSystem("cannot open a folder of the cache", error, path: path)
        }
        let kind = (try? FileStatus.ofLink(path).kind) ?? (error == .tooManyLinks ? .symbolicLink : .unknown)
        return CacheError.foreign(path, is: kind, where: what)
    }

    /// Calls `body` for every entry of every shard of the object store, with the shard (opened
    /// as above), the entry, and the 64-hex name it claims (shard and entry name). Entries of
    /// `objects/` that are not shard names are left alone.
    func forEachObjectFile(
        _ body: (_ shard: borrowing OpenFolder, _ entry: Folder.Entry, _ name: String) throws(CacheError) -> Void
    ) throws(CacheError) {
        guard let objects = try open(.objects) else { return }
        let shards: [Folder.Entry]
        do { shards = try objects.entries() } catch { throw CacheError.fileSystem("cannot list the object store", error, path: objects.path) }
        for entry in shards where Self.isShardName(entry.name) {
            guard let shard = try Self.openShard(entry.name, in: objects) else { continue }  // gone meanwhile
            let files: [Folder.Entry]
            do { files = try shard.entries() } catch { throw CacheError.fileSystem("cannot list the object store", error, path: shard.path) }
            for file in files { try body(shard, file, entry.name + file.name) }
        }
    }

    /// Removes the files of `objects` from the store (``CacheError/Code/storage`` naming the first
    /// that cannot go); anything planted in an object's place goes too, a folder with what is
    /// in it, a link without what it points at.
    func removeObjects(_ objects: [Digest]) throws(CacheError) {
        guard !objects.isEmpty, let store = try open(.objects) else { return }
        var byShard: [String: [Digest]] = [:]
        for object in objects { byShard[String(object.hex.prefix(2)), default: []].append(object) }
        for (name, digests) in byShard.sorted(by: { $0.key < $1.key }) {
            guard let shard = try Self.openShard(name, in: store) else { continue }
            for digest in digests {
                do { try shard.removeEntry(String(digest.hex.dropFirst(2))) } catch {
                    throw CacheError(.storage, "cannot remove an object: \(error.reasonText)", digest: digest, path: error.path)
                }
            }
        }
    }

    private static func isShardName(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension CacheError {
    /// The error for a tree a removal could not finish.
    static func removal(_ error: Folder.RemovalError, _ what: String) -> CacheError {
        switch error.reason {
        case .tooDeep: CacheError(.storage, "\(what): a folder is nested too deep to remove; remove it by hand", path: error.path)
        case .file(let errno): CacheError.fileSystem("\(what): cannot remove a file", errno, path: error.path)
        case .folder(let errno): CacheError.fileSystem("\(what): cannot remove a folder", errno, path: error.path)
        }
    }
}

extension Folder.RemovalError {
    /// What went wrong, for a message.
    var reasonText: String {
        switch reason {
        case .tooDeep: "nested too deep"
        case .file(let errno), .folder(let errno): "\(errno)"
        }
    }
}

extension CacheLayout {
    /// The 64-hex names of the files in the object store's shards (what a sweep would look at).
    func objectFileNames() throws(CacheError) -> [String] {
        var names: [String] = []
        try forEachObjectFile { (_, _, name) throws(CacheError) in names.append(name) }
        return names
    }
}
