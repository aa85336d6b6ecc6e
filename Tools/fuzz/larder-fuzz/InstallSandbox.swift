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
    /// The cache folder's listing, read again where inotify saw a change.
    let cacheFolder: WatchedFolder
    /// The sandbox but the cache folder, as it was made, and as it is.
    private let outside: [String: [String: String]]
    private let outsideFolder: WatchedFolder

    private init() {
        let parent = ProcessInfo.processInfo.environment["LARDER_FUZZ_SANDBOX"] ?? NSTemporaryDirectory()
        root = parent + "/larder-fuzz-install-\(getpid())"
        cacheRoot = root + "/" + (1...10).map { "level\($0)" }.joined(separator: "/") + "/cache"
        do {
            if FileManager.default.fileExists(atPath: root) { try FileManager.default.removeItem(atPath: root) }
            try WatchedFolderProof.run(in: root + "/watch-proof")
            try FileManager.default.createDirectory(atPath: cacheRoot, withIntermediateDirectories: true)
            try Data("canary".utf8).write(to: URL(fileURLWithPath: root + "/level1/canary.txt"))
            var configuration = LarderCache.Configuration()
            configuration.limits = ArchiveTargets.limits
            cache = try LarderCache(at: cacheRoot, configuration: configuration)
            cacheFolder = try WatchedFolder(root: cacheRoot, ignoring: Self.isScratch)
        } catch {
            fatalError("install sandbox: cannot set up \(root): \(error)")
        }
        do { outsideFolder = try WatchedFolder(root: root, skipping: String(cacheRoot.dropFirst(root.count + 1))) } catch {
            fatalError("install sandbox: cannot watch \(root): \(error)")
        }
        outside = outsideFolder.folders
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

    /// Whether a cache folder entry is left out of the comparison: SQLite's WAL and
    /// shared-memory files, which reads write too.
    static func isScratch(_ name: String) -> Bool { name.hasSuffix("-wal") || name.hasSuffix("-shm") }

    /// Refreshes the cache folder's listing; every 256th time, also requires it to be what a
    /// full listing reads, so a change inotify did not report cannot pass unseen for long.
    func refreshCacheFolder() {
        cacheFolder.refresh()
        refreshes += 1
        guard refreshes % 256 == 0 else { return }
        let watched = WatchedFolder.flattened(cacheFolder.folders)
        let full = FolderListing.tree(cacheRoot).filter { $0.value == FolderListing.folder || !Self.isScratch($0.key) }
        require(watched == full, "the watched cache listing is not a full listing's: \(FolderListing.difference(full, watched))")
    }

    private var refreshes = 0

    /// Empties the cache after an install as a logout does (``LarderCache/clearAll()``: the
    /// bundles' rows, then the objects only they used, by name) and every 16th time as a purge
    /// does (every object shard listed and emptied); either must leave the cache folder as it
    /// was before the install, `before`.
    func empty(back before: [String: [String: String]]) {
        emptied += 1
        let purging = emptied % 16 == 0
        do {
            if purging { try cache.purge() } else { try cache.clearAll() }
        } catch {
            require(false, "\(purging ? "purge" : "clearAll") after an install failed: \(error)")
        }
        refreshCacheFolder()
        require(
            cacheFolder.folders == before,
            "\(purging ? "purge" : "clearAll") after an install left the cache folder changed: \(FolderListing.difference(WatchedFolder.flattened(before), WatchedFolder.flattened(cacheFolder.folders)))")
    }

    private var emptied = 0

    /// Requires the sandbox outside the cache to be as it was made (every 256th input, by a full
    /// listing too).
    func checkOutside() {
        outsideFolder.refresh()
        let now = outsideFolder.folders
        require(
            now == outside,
            "something was written outside the cache: \(FolderListing.difference(WatchedFolder.flattened(outside), WatchedFolder.flattened(now)))")
        guard refreshes % 256 == 0 else { return }
        let full = FolderListing.tree(root, skipping: String(cacheRoot.dropFirst(root.count + 1)))
        require(full == WatchedFolder.flattened(outside), "something was written outside the cache, unseen by inotify: \(FolderListing.difference(WatchedFolder.flattened(outside), full))")
    }
}
