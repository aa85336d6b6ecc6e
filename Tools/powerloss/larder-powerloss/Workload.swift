import Foundation
import LarderCache
import LarderFormat
import LarderHost
import LarderSystem
import LarderToolSupport

/// Writes marks to powerloss-disk's `marks` file: one `write(2)` per line, so the daemon logs
/// it between the image writes that came before and after.
final class Marks {
    private let handle: FileHandle
    private let prefix: String
    private var count = 0

    init(path: String, prefix: String) throws {
        guard let handle = FileHandle(forWritingAtPath: path) else { throw ToolError("cannot open the marks file \(path)") }
        self.handle = handle
        self.prefix = prefix
    }

    /// Writes `begin <id> <what>`, runs `body`, then writes `ack <id> <its result>`; a failure
    /// is written as `fail <id> <error>` and thrown.
    func operation(_ what: String, _ body: () throws -> String) throws {
        count += 1
        let id = "\(prefix)-\(count)"
        write("begin \(id) \(what)")
        let result: String
        do { result = try body() } catch {
            write("fail \(id) \(String(describing: error).replacingOccurrences(of: "\n", with: " "))")
            throw error
        }
        write(result.isEmpty ? "ack \(id)" : "ack \(id) \(result)")
    }

    func write(_ line: String) {
        handle.write(Data((line + "\n").utf8))
    }
}

/// The workload: the real cache, driven through its public API by several processes at once,
/// each operation between a `begin` and an `ack` mark. One process per role.
struct Workload {
    let cacheRoot: String
    let archives: Archives
    let marks: Marks
    let rounds: Int
    var random: SeededGenerator

    /// Installs every archive in a new order each round.
    mutating func installs() throws {
        let cache = try LarderCache(at: cacheRoot)
        for _ in 0..<rounds {
            var order = archives.entries
            order.shuffle(using: &random)
            for entry in order {
                try marks.operation("install \(entry.digest)") {
                    let result = try cache.install(archiveAt: entry.path, expected: entry.digest)
                    return result.alreadyPresent ? "present" : "written=\(result.objectsWritten)"
                }
            }
        }
    }

    /// Removals (a scope dropping its bundles, eviction), sweeps, and damage: an object of the
    /// generated bundle overwritten, found by `verify(repair:)`, healed by installing again.
    mutating func maintenance() throws {
        let cache = try LarderCache(at: cacheRoot)
        let damageable = archives.uniqueObjects(of: "generated")
        let generated = archives.entries.first { $0.manifest.name == "generated" }
        for round in 0..<rounds {
            let scope = "powerloss-\(round)"
            let kept = Set(archives.entries.shuffled(using: &random).prefix(2).map(\.digest))
            try marks.operation("retain \(scope)") {
                let result = try cache.retain(scope: scope, keeping: kept)
                return "removed=" + result.removed.map(\.description).joined(separator: ",")
            }
            try marks.operation("retain \(scope)") {
                let result = try cache.retain(scope: scope, keeping: [])
                return "removed=" + result.removed.map(\.description).joined(separator: ",")
            }
            try marks.operation("evict") {
                let report = try cache.evict(toBytes: 2_000_000)
                return "removed=" + report.evicted.map(\.description).joined(separator: ",")
            }
            try marks.operation("gc") {
                _ = try cache.sweep()
                return ""
            }
            guard let generated, !damageable.isEmpty else { continue }
            let object = damageable[round % damageable.count]
            try marks.operation("corrupt \(object)") { try Self.damage(cacheObjectPath(cacheRoot, object)) }
            try marks.operation("repair") {
                let found = try cache.verify(repair: true)
                return "incomplete=" + found.incomplete.map(\.description).joined(separator: ",")
            }
            try marks.operation("install \(generated.digest)") {
                let result = try cache.install(archiveAt: generated.path, expected: generated.digest)
                return result.alreadyPresent ? "present" : "written=\(result.objectsWritten)"
            }
        }
    }

    /// Events enqueued in the host's capture queue, one operation each.
    mutating func captures(count: Int) throws {
        let folder = cacheRoot + "/host"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let queue = try CaptureQueue(path: folder + "/capture.sqlite")
        let bundle = archives.entries[0].digest
        for index in 0..<count {
            let id = "event-\(ProcessInfo.processInfo.processIdentifier)-\(index)"
            try marks.operation("capture \(id)") {
                let event = CaptureEvent(
                    id: id, visitor: "visitor", session: "session-\(index / 5)", journey: "onboarding", revision: 1, bundle: bundle,
                    context: ["placement": "powerloss"], body: Array("{\"answer\":\(index)}".utf8), created: Date())
                return try queue.enqueue(event) ? "" : "duplicate"
            }
            usleep(UInt32(random.next() % 20_000))
        }
    }

    /// Overwrites the start of a file in place (the bytes change, the size does not) and
    /// flushes it.
    /// - Returns: `missing` when there was no file to damage.
    static func damage(_ path: String) throws -> String {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return "missing" }
            throw ToolError("cannot open \(path) to damage it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let garbage = Array("POWERLOSS-DAMAGE".utf8)
        guard pwrite(descriptor, garbage, garbage.count, 0) == garbage.count, fsync(descriptor) == 0 else {
            throw ToolError("cannot damage \(path): \(String(cString: strerror(errno)))")
        }
        return ""
    }
}

