import Foundation
import LarderCache
import LarderFormat
import LarderSystem

/// The folder an install target's cache lives in, deep inside a sandbox folder the process owns
/// (`$LARDER_FUZZ_SANDBOX`, else one in the temporary folder), with a canary file beside it:
/// a path that climbs out of the cache (`..` ten levels up) still lands in the sandbox, whose
/// every file outside the cache is checked after each input.
final class InstallSandbox: @unchecked Sendable {
    /// Made on first use; libFuzzer runs every input on one thread.
    static let shared = InstallSandbox()

    let root: String
    let cacheRoot: String
    let cache: LarderCache
    private let outside: [String: String]

    private init() {
        let parent = ProcessInfo.processInfo.environment["LARDER_FUZZ_SANDBOX"] ?? NSTemporaryDirectory()
        root = parent + "/larder-fuzz-install-\(getpid())"
        cacheRoot = root + "/" + (1...10).map { "level\($0)" }.joined(separator: "/") + "/cache"
        do {
            if FileManager.default.fileExists(atPath: root) { try FileManager.default.removeItem(atPath: root) }
            try FileManager.default.createDirectory(atPath: cacheRoot, withIntermediateDirectories: true)
            try Data("canary".utf8).write(to: URL(fileURLWithPath: root + "/level1/canary.txt"))
            var configuration = LarderCache.Configuration()
            configuration.limits = ArchiveTargets.limits
            cache = try LarderCache(at: cacheRoot, configuration: configuration)
        } catch {
            fatalError("install sandbox: cannot set up \(root): \(error)")
        }
        outside = Self.listing(root, skipping: String(cacheRoot.dropFirst(root.count + 1)))
        Self.madeRoot.withLock { [root] in $0 = root }
        atexit { InstallSandbox.removeAtExit() }
    }

    private static func removeAtExit() {
        // Only when the sandbox was made: reading `shared` here would make it.
        guard let root = madeRoot.withLock({ $0 }) else { return }
        do { try FileManager.default.removeItem(atPath: root) } catch {
            FileHandle.standardError.write(Data("larder-fuzz: could not remove \(root): \(error)\n".utf8))
        }
    }

    private static let madeRoot = Locked<String?>(nil)

    /// Every path under `folder` (relative) but those under `skipping`, with what it is: a
    /// file's bytes' digest (the cache index's files by name only: they change only when a
    /// transaction commits), "folder", "link -> target", or another kind. readdir and lstat,
    /// not FileManager's enumerator, which takes 100 ms over the cache's shard folders.
    static func listing(_ folder: String, skipping: String? = nil) -> [String: String] {
        var result: [String: String] = [:]
        walk(folder, relative: "", skipping: skipping, into: &result)
        return result
    }

    private static func walk(_ folder: String, relative: String, skipping: String?, into result: inout [String: String]) {
        guard let directory = opendir(folder) else {
            result[relative] = "unlistable: errno \(errno)"
            return
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            let path = folder + "/" + name
            let key = relative.isEmpty ? name : relative + "/" + name
            if key == skipping { continue }
            var status = stat()
            guard lstat(path, &status) == 0 else {
                result[key] = "gone: errno \(errno)"
                continue
            }
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                result[key] = "folder"
                walk(path, relative: key, skipping: skipping, into: &result)
            case S_IFLNK:
                var target = [UInt8](repeating: 0, count: 4096)
                let count = readlink(path, &target, target.count)
                result[key] = "link -> " + String(decoding: target.prefix(max(0, count)), as: UTF8.self)
            case S_IFREG where name.hasPrefix("index.sqlite"):
                result[key] = "index"
            case S_IFREG:
                do { result[key] = SHA256Hasher.hash(try ReadableFile(path: path).readAll()).description } catch {
                    result[key] = "unreadable: \(error)"
                }
            default:
                result[key] = "kind \(status.st_mode & S_IFMT)"
            }
        }
    }

    /// The cache folder's entries but SQLite's WAL and shared-memory files.
    func cacheListing() -> [String: String] {
        Self.listing(cacheRoot).filter { !$0.key.hasSuffix("-wal") && !$0.key.hasSuffix("-shm") }
    }

    /// Requires the sandbox outside the cache to be as it was made.
    func checkOutside() {
        let now = Self.listing(root, skipping: String(cacheRoot.dropFirst(root.count + 1)))
        require(now == outside, "something was written outside the cache: \(Self.difference(outside, now))")
    }

    static func difference(_ before: [String: String], _ after: [String: String]) -> String {
        let added = after.keys.filter { before[$0] == nil }.sorted()
        let removed = before.keys.filter { after[$0] == nil }.sorted()
        let changed = after.keys.filter { before[$0] != nil && before[$0] != after[$0] }.sorted()
        return "added \(added.prefix(5)), removed \(removed.prefix(5)), changed \(changed.prefix(5))"
    }
}
