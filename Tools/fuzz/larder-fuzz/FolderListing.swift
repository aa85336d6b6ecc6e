import Foundation
import LarderFormat
import LarderSystem

/// What is in a folder, the way the install target compares a cache folder before and after
/// an input: each entry with what it is, a file by its bytes' digest (the cache index's files
/// by name only: they change only when a transaction commits), "folder", "link -> target", or
/// another kind. readdir and lstat, not FileManager's enumerator, which takes 100 ms over the
/// cache's shard folders.
enum FolderListing {
    static let folder = "folder"

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Every path under `folder` (relative) but those under `skipping`.
    static func tree(_ folder: String, skipping: String? = nil) -> [String: String] {
        var result: [String: String] = [:]
        walk(folder, relative: "", skipping: skipping, into: &result)
        return result
    }

    /// The entries directly in the folder at `path`, by name.
    static func entries(of path: String) -> [String: String] {
        guard let directory = opendir(path) else { return [".": "unlistable: errno \(errno)"] }
        defer { closedir(directory) }
        var result: [String: String] = [:]
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            result[name] = describe(path + "/" + name, name: name)
        }
        return result
    }

    private static func walk(_ folder: String, relative: String, skipping: String?, into result: inout [String: String]) {
        for (name, description) in entries(of: folder) {
            let key = relative.isEmpty ? name : relative + "/" + name
            if key == skipping { continue }
            result[key] = description
            if description == Self.folder { walk(folder + "/" + name, relative: key, skipping: skipping, into: &result) }
        }
    }

    private static func describe(_ path: String, name: String) -> String {
        var status = stat()
        guard lstat(path, &status) == 0 else { return "gone: errno \(errno)" }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            return folder
        case S_IFLNK:
            var target = [UInt8](repeating: 0, count: 4096)
            let count = readlink(path, &target, target.count)
            return "link -> " + String(decoding: target.prefix(max(0, count)), as: UTF8.self)
        case S_IFREG where name.hasPrefix("index.sqlite"):
            return "index"
        case S_IFREG:
            do { return SHA256Hasher.hash(try ReadableFile(path: path).readAll()).description } catch {
                return "unreadable: \(error)"
            }
        default:
            return "kind \(status.st_mode & S_IFMT)"
        }
    }

    /// What differs between two listings, for a failure's message.
    static func difference(_ before: [String: String], _ after: [String: String]) -> String {
        let added = after.keys.filter { before[$0] == nil }.sorted()
        let removed = before.keys.filter { after[$0] == nil }.sorted()
        let changed = after.keys.filter { before[$0] != nil && before[$0] != after[$0] }.sorted()
        return "added \(added.prefix(5)), removed \(removed.prefix(5)), changed \(changed.prefix(5))"
    }
}
