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
        let cacheRelative = String(cacheRoot.dropFirst(root.count + 1))
        outside = Self.listing(root) { !$0.hasPrefix(cacheRelative) }
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

    /// Every path under `folder` that `include` keeps (relative), with what it is: a file's
    /// bytes' digest, "folder", or "link -> target".
    static func listing(_ folder: String, include: (String) -> Bool = { _ in true }) -> [String: String] {
        var result: [String: String] = [:]
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(atPath: folder) else { return result }
        while let relative = enumerator.nextObject() as? String {
            guard include(relative) else { continue }
            let path = folder + "/" + relative
            let attributes: [FileAttributeKey: Any]
            do { attributes = try manager.attributesOfItem(atPath: path) } catch {
                result[relative] = "unreadable: \(error)"
                continue
            }
            switch attributes[.type] as? FileAttributeType {
            case .typeDirectory?: result[relative] = "folder"
            case .typeSymbolicLink?:
                do { result[relative] = "link -> " + (try manager.destinationOfSymbolicLink(atPath: path)) } catch {
                    result[relative] = "link: \(error)"
                }
            case .typeRegular? where relative.split(separator: "/").last?.hasPrefix("index.sqlite") == true:
                // The index changes only when a transaction commits; its content is the cache's
                // to check (a refused install commits none).
                result[relative] = "index"
            case .typeRegular?:
                do { result[relative] = SHA256Hasher.hash(try ReadableFile(path: path).readAll()).description } catch {
                    result[relative] = "unreadable: \(error)"
                }
            default: result[relative] = "special \(String(describing: attributes[.type]))"
            }
        }
        return result
    }

    /// The cache folder's entries but SQLite's WAL and shared-memory files.
    func cacheListing() -> [String: String] {
        Self.listing(cacheRoot) { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
    }

    /// Requires the sandbox outside the cache to be as it was made.
    func checkOutside() {
        let now = Self.listing(root) { !$0.hasPrefix(String(cacheRoot.dropFirst(root.count + 1))) }
        require(now == outside, "something was written outside the cache: \(Self.difference(outside, now))")
    }

    static func difference(_ before: [String: String], _ after: [String: String]) -> String {
        let added = after.keys.filter { before[$0] == nil }.sorted()
        let removed = before.keys.filter { after[$0] == nil }.sorted()
        let changed = after.keys.filter { before[$0] != nil && before[$0] != after[$0] }.sorted()
        return "added \(added.prefix(5)), removed \(removed.prefix(5)), changed \(changed.prefix(5))"
    }
}
