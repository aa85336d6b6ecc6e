import Foundation

/// A folder tree's listing (``FolderListing``) kept current by inotify: after an input, only
/// the folders the kernel reported a change in are read again. A full listing of the install
/// target's cache reads 262 folders (the 256 object shards among them) and was most of the
/// target's time; most inputs change one folder or none.
///
/// Every folder in the tree is watched for entries made, removed, renamed or written and for
/// attribute changes, and a watch is set before its folder is read, so no change falls
/// between the two. A lost event (the queue overflowed) or a failed read of the queue reads
/// the whole tree again. One thread uses it (libFuzzer's).
final class WatchedFolder {
    /// Each folder's entries by name, the folders by their path under the root ("" for the root).
    private(set) var folders: [String: [String: String]] = [:]

    private let root: String
    private let ignoring: (String) -> Bool
    private let skipping: String?
    private let queue: Int32
    private var watched: [Int32: String] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private static let events = UInt32(
        IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF
            | IN_ONLYDIR | IN_DONT_FOLLOW)

    /// - Parameters:
    ///   - ignoring: names of entries (not folders) left out of the listing, and whose changes
    ///     are not read: SQLite's WAL and shared-memory files.
    ///   - skipping: a folder under the root (its path) left out with everything in it.
    init(root: String, ignoring: @escaping (String) -> Bool = { _ in false }, skipping: String? = nil) throws {
        self.root = root
        self.ignoring = ignoring
        self.skipping = skipping
        queue = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard queue >= 0 else { throw FolderListing.Failure("inotify_init1: errno \(errno)") }
        readEverything()
    }

    deinit { close(queue) }

    /// Reads again what the kernel reported a change in since the last call.
    func refresh() {
        var changed = Set<String>()
        while true {
            let count = buffer.withUnsafeMutableBytes { read(queue, $0.baseAddress, $0.count) }
            if count < 0 && errno == EAGAIN { break }
            guard count > 0 else {
                readEverything()  // a queue that cannot be read: nothing it held can be trusted
                return
            }
            var offset = 0
            while offset < count {
                let (descriptor, mask, length) = buffer.withUnsafeBytes { bytes in
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = String(decoding: buffer[nameStart..<nameStart + length].prefix { $0 != 0 }, as: UTF8.self)
                offset = nameStart + length
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    readEverything()
                    return
                }
                guard let folder = watched[descriptor] else { continue }
                if mask & UInt32(IN_IGNORED) != 0 {
                    watched[descriptor] = nil  // the folder went: its parent's event reads it out
                } else if name.isEmpty || !ignoring(name) || mask & UInt32(IN_ISDIR) != 0 {
                    changed.insert(folder)
                }
            }
        }
        // Parents first: a folder their new listing drops is not read.
        for folder in changed.sorted(by: { $0.utf8.count < $1.utf8.count }) where folders[folder] != nil {
            list(folder)
        }
    }

    /// The tree as one listing: every path under the root with what it is.
    static func flattened(_ folders: [String: [String: String]]) -> [String: String] {
        var result: [String: String] = [:]
        for (folder, entries) in folders {
            for (name, description) in entries { result[folder.isEmpty ? name : folder + "/" + name] = description }
        }
        return result
    }

    private func readEverything() {
        folders = [:]
        watched = [:]
        list("")
    }

    /// Watches `folder`, reads its entries, drops the folders it no longer holds and reads the new ones.
    private func list(_ folder: String) {
        let location = folder.isEmpty ? root : root + "/" + folder
        let descriptor = inotify_add_watch(queue, location, Self.events)
        if descriptor >= 0 { watched[descriptor] = folder }
        var entries = FolderListing.entries(of: location)
        if descriptor < 0 { entries["."] = "unwatchable: errno \(errno)" }
        entries = entries.filter { ($0.value == FolderListing.folder || !ignoring($0.key)) && path(folder, $0.key) != skipping }
        let before = folders[folder] ?? [:]
        folders[folder] = entries
        for (name, description) in before where description == FolderListing.folder && entries[name] != FolderListing.folder {
            forget(path(folder, name))
        }
        for (name, description) in entries where description == FolderListing.folder {
            let child = path(folder, name)
            if folders[child] == nil { list(child) }
        }
    }

    private func path(_ folder: String, _ name: String) -> String { folder.isEmpty ? name : folder + "/" + name }

    /// Drops `folder` and everything under it from the listing (their watches end with them,
    /// or stay with a folder moved elsewhere in the tree, which reads it again).
    private func forget(_ folder: String) {
        let prefix = folder + "/"
        for key in folders.keys where key == folder || key.hasPrefix(prefix) { folders[key] = nil }
        for (descriptor, path) in watched where path == folder || path.hasPrefix(prefix) { watched[descriptor] = nil }
    }
}
