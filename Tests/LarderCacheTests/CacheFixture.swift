import Foundation
import LarderFormat
import LarderTestSupport
import Synchronization
@testable import LarderCache

/// A scratch cache folder for one test, removed when the test ends.
final class CacheFixture: @unchecked Sendable {
    let root: String
    let clock = ManualClock()

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("larder-cache-\(UUID().uuidString)").path
    }

    deinit {
        // The archives folder is made only when a test writes an archive (``file(_:name:)``).
        for path in [root, root + "-archives"] where FileManager.default.fileExists(atPath: path) {
            do { try FileManager.default.removeItem(atPath: path) } catch { print("could not remove \(path): \(error)") }
        }
    }

    /// Opens the cache with a manual clock (advance with ``tick(_:)``).
    func open(diskBudget: Int64? = nil, memoryBudget: Int = 1 << 20, limits: ArchiveReader.Limits = .default) throws -> LarderCache {
        var configuration = LarderCache.Configuration(diskBudget: diskBudget, memoryBudget: memoryBudget)
        configuration.limits = limits
        let clock = self.clock
        configuration.now = { clock.milliseconds.load(ordering: .relaxed) }
        return try LarderCache(at: root, configuration: configuration)
    }

    func tick(_ milliseconds: Int64 = 1000) { clock.milliseconds.add(milliseconds, ordering: .relaxed) }

    /// `cache.sweep(dryRun:)`, tried again for up to 2 s while it finds the sweep lock held.
    /// Nothing else uses this folder, but a child process another test spawns at that moment
    /// holds a copy of the lock's descriptor until it execs (`posix_spawn` copies the
    /// descriptor table), so a lock this process just released can read as held for a moment.
    func sweepWhenFree(_ cache: LarderCache, dryRun: Bool = false) throws -> SweepReport? {
        for _ in 0..<200 {
            if let report = try cache.sweep(dryRun: dryRun) { return report }
            usleep(10_000)
        }
        return try cache.sweep(dryRun: dryRun)
    }

    /// Writes archive bytes to a file in the fixture's parent folder.
    func file(_ bytes: [UInt8], name: String = UUID().uuidString + ".tar.gz") throws -> String {
        let folder = root + "-archives"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every file under the cache folder (but SQLite's WAL and shared-memory files), sorted.
    var fileList: [String] {
        let all = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        return all.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
    }

    /// Every entry under the cache folder but the index files, byte for byte (see
    /// ``folderSnapshot(_:include:)``).
    var snapshot: [String: String] {
        folderSnapshot(root) { !$0.hasPrefix("index.sqlite") }
    }

    /// The index's content, row by row.
    func indexDump(_ cache: LarderCache) throws -> [String] {
        try cache.index.withLock { (index) throws(CacheError) -> [String] in
            var rows: [String] = []
            for table in ["objects", "bundles", "files", "scopes", "leases", "counters"] {
                let query = try index.database.prepare("SELECT * FROM \(table) ORDER BY 1, 2")
                while try query.step() { rows.append("\(table): \(query.text(0)) \(query.text(1))") }
            }
            return rows
        }
    }
}

/// Time for the cache's `now`, moved only by the test.
final class ManualClock: Sendable {
    let milliseconds = Atomic<Int64>(1_000_000)
}

/// A small bundle: the given files plus an index.html, as archive bytes with its manifest.
func bundle(_ name: String, _ files: [String: String], level: Int = 6) throws -> (archive: [UInt8], manifest: Manifest) {
    var all = files.mapValues { Array($0.utf8) }
    if all["index.html"] == nil { all["index.html"] = Array("<!doctype html><title>\(name)</title>".utf8) }
    return try makeBundleArchive(files: all, name: name, level: level)
}

/// Random-looking bytes that do not compress, from a seed.
func noise(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
}
