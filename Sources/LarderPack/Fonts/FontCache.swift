import Foundation
import LarderFormat
import LarderSystem

/// Where converted fonts are kept between packs.
public enum FontCacheLocation: Sendable, Equatable {
    /// `$XDG_CACHE_HOME/larder/fonts`, else `$HOME/.cache/larder/fonts`; none when neither is set.
    case standard
    /// This folder (`--font-cache`).
    case folder(String)
    /// Convert every time.
    case none

    /// The folder this location names, nil for none.
    public var path: String? {
        switch self {
        case .folder(let path): return path
        case .none: return nil
        case .standard:
            let environment = ProcessInfo.processInfo.environment
            if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/larder/fonts" }
            if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/larder/fonts" }
            return nil
        }
    }
}

/// A content-addressed cache of font conversions: each entry is named by the SHA-256 of its key
/// (the input's digest, the operation and its options, and the libraries' versions) and holds
/// that key, the output's digest and size, then the output. An entry is used only when its key
/// is the one asked for and its bytes hash to its digest; anything else there (a file cut by a
/// crash, one planted or copied from another key) is replaced by a new conversion. Entries are
/// written through a temporary file and a rename (`AtomicFileWriter`), so a process killed
/// while writing leaves no entry, only a temporary file the next pack removes after an hour.
///
/// Thread-safe: several conversions use it at once, and several processes may share a folder
/// (the same key always gives the same bytes, so the last rename wins harmlessly).
final class FontCache: Sendable {
    /// What a pack's conversions found.
    struct Statistics: Sendable, Equatable {
        var hits = 0
        var misses = 0
        /// Entries whose key or digest did not check out (replaced).
        var rejected = 0
        /// Why writing an entry failed, once per reason (the pack goes on without it).
        var problems: [String] = []
    }

    let folder: String?
    private let statistics = Locked(Statistics())

    var current: Statistics { statistics.withLock { $0 } }

    init(_ location: FontCacheLocation) {
        var folder = location.path
        if let path = folder {
            do { try Self.createFolders(path) } catch {
                statistics.withLock { $0.problems.append("cannot create the font cache folder \(path): \(error)") }
                folder = nil
            }
        }
        self.folder = folder
        if let folder { Self.removeStaleTemporaries(in: folder) }
    }

    /// The output for `key`: the stored one when it checks out, else `make()`'s, stored.
    func value(for key: String, make: () throws(FontProblem) -> [UInt8]) throws(FontProblem) -> [UInt8] {
        guard let folder else {
            statistics.withLock { $0.misses += 1 }
            return try make()
        }
        let name = SHA256Hasher.hash(Array(key.utf8)).hex
        let path = folder + "/" + name
        let header = "larder-font-cache 1\n" + key + "\n"
        switch read(path, header: header) {
        case .found(let bytes):
            statistics.withLock { $0.hits += 1 }
            return bytes
        case .rejected:
            statistics.withLock { $0.rejected += 1 }
        case .missing:
            break
        }
        statistics.withLock { $0.misses += 1 }
        let bytes = try make()
        store(bytes, header: header, folder: folder, name: name)
        return bytes
    }

    private enum Lookup {
        case found([UInt8])
        case rejected
        case missing
    }

    private func read(_ path: String, header: String) -> Lookup {
        let content: [UInt8]
        do { content = try ReadableFile(path: path).readAll(limit: 128 << 20) } catch {
            return access(path, F_OK) == 0 ? .rejected : .missing
        }
        let expected = Array(header.utf8)
        guard content.count > expected.count, content.starts(with: expected),
            let end = content[expected.count...].firstIndex(of: 0x0A)
        else { return .rejected }
        // "output sha256:<hex> <size>\n" then the bytes.
        let line = String(decoding: content[expected.count..<end], as: UTF8.self).split(separator: " ")
        guard line.count == 3, line[0] == "output", let digest = try? Digest(parsing: String(line[1])), let size = Int(line[2]),
            size == content.count - end - 1
        else { return .rejected }
        let bytes = Array(content[(end + 1)...])
        return SHA256Hasher.hash(bytes) == digest ? .found(bytes) : .rejected
    }

    private func store(_ bytes: [UInt8], header: String, folder: String, name: String) {
        let head = Array((header + "output \(SHA256Hasher.hash(bytes)) \(bytes.count)\n").utf8)
        do throws(FormatError) {
            let output = try AtomicFileWriter(folder: folder, prefix: name)
            try FormatError.typed { try head.withUnsafeBytes { try output.write($0) } }
            try FormatError.typed { try bytes.withUnsafeBytes { try output.write($0) } }
            try output.commit(to: folder + "/" + name)
        } catch {
            let problem = "cannot write to the font cache: \(error.message)"
            statistics.withLock { if !$0.problems.contains(problem) { $0.problems.append(problem) } }
        }
    }

    private static func createFolders(_ path: String) throws(Errno) {
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix += "/" + part
            try Folder.create(prefix)
        }
    }

    /// Temporary files of writers that died (`.<name>.<random>.tmp`), an hour or more old.
    private static func removeStaleTemporaries(in folder: String) {
        let now = time(nil)
        for name in Folder.names(folder) where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            var info = stat()
            let path = folder + "/" + name
            if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, now - info.st_mtim.tv_sec > 3600 { unlink(path) }
        }
    }
}
