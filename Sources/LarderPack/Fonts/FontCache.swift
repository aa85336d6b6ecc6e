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
/// that key, the output's digest and size, a signature, then the output.
///
/// Whoever can write the folder can write any entry, digest included (a CI cache shared between
/// branches, a folder of another user), so an entry is used only when it is one of these:
/// - signed with this user's ``FontCacheKey`` (kept outside the folder): a pack of this user
///   wrote it, and reading it costs a hash;
/// - else, checked against its source by the caller's `verify` (a converted font must be the
///   very encoding of the subset its source gives, see ``FontTools/verifyWOFF2(_:encodes:)``;
///   a character map must be the source's): then it is signed and used. A cache restored on
///   another machine costs this check once per entry, milliseconds where converting takes
///   seconds.
/// Anything else (cut by a crash, changed, planted, another key's file) is counted as rejected
/// and replaced by a new conversion. A folder other users can write, or owned by another user,
/// is not used at all (a ``PackWarning/Kind/fontCache`` warning says so). Entries are written
/// through a temporary file and a rename (`AtomicFileWriter`), so a process killed while
/// writing leaves no entry, only a temporary file the next pack removes after an hour.
///
/// Thread-safe: several conversions use it at once, and several processes may share a folder
/// (the same key always gives the same bytes, so the last rename wins harmlessly).
final class FontCache: Sendable {
    /// What a pack's conversions found.
    struct Statistics: Sendable, Equatable {
        var hits = 0
        var misses = 0
        /// Hits that were not signed with this user's key and were checked against their source.
        var verified = 0
        /// Entries that did not check out (replaced).
        var rejected = 0
        /// What kept the cache from working fully, once per reason, each a sentence saying what
        /// the pack did instead.
        var problems: [String] = []
    }

    let folder: String?
    let key: FontCacheKey?
    private let statistics = Locked(Statistics())

    var current: Statistics { statistics.withLock { $0 } }

    /// - Parameters:
    ///   - keyPath: the file of the key that signs entries (made when missing); nil: no key, so
    ///     every entry is checked against its source.
    init(_ location: FontCacheLocation, keyPath: String? = FontCacheKey.standardPath) {
        var folder = location.path
        if let path = folder {
            if let problem = Self.prepare(path) {
                statistics.withLock { $0.problems.append(problem + "; fonts are converted without it") }
                folder = nil
            }
        }
        self.folder = folder
        var key: FontCacheKey?
        if folder != nil, let keyPath {
            do { key = try FontCacheKey.load(keyPath) } catch {
                statistics.withLock { $0.problems.append(error.message + "; font cache entries are checked against their sources instead") }
            }
        }
        self.key = key
        if let folder { Self.removeStaleTemporaries(in: folder) }
    }

    /// The output for `key`: the stored one when it is signed, or unsigned and `verify` accepts
    /// it (then signed); else `make()`'s, stored.
    /// - Parameters:
    ///   - verify: whether an unsigned entry's bytes are what `make` would give; its errors
    ///     (the source cannot be read) end the call.
    func value(
        for key: String, verify: ([UInt8]) throws(FontProblem) -> Bool, make: () throws(FontProblem) -> [UInt8]
    ) throws(FontProblem) -> [UInt8] {
        guard let folder else {
            statistics.withLock { $0.misses += 1 }
            return try make()
        }
        let name = SHA256Hasher.hash(Array(key.utf8)).hex
        let entry = Entry(folder: folder, name: name, key: key)
        switch entry.read(signedWith: self.key) {
        case .signed(let bytes):
            statistics.withLock { $0.hits += 1 }
            return bytes
        case .unsigned(let bytes):
            if try verify(bytes) {
                statistics.withLock {
                    $0.hits += 1
                    $0.verified += 1
                }
                if self.key != nil { store(bytes, in: entry) }
                return bytes
            }
            statistics.withLock { $0.rejected += 1 }
        case .rejected:
            statistics.withLock { $0.rejected += 1 }
        case .missing:
            break
        }
        statistics.withLock { $0.misses += 1 }
        let bytes = try make()
        store(bytes, in: entry)
        return bytes
    }

    private func store(_ bytes: [UInt8], in entry: Entry) {
        do throws(FormatError) { try entry.write(bytes, signedWith: key) } catch {
            let problem = "cannot write to the font cache: \(error.message); fonts are converted without it"
            statistics.withLock { if !$0.problems.contains(problem) { $0.problems.append(problem) } }
        }
    }

    /// Creates the folder, and checks that no other user can write it.
    /// - Returns: why it cannot be used, nil when it can.
    private static func prepare(_ path: String) -> String? {
        do {
            try Folder.createPath(path)
        } catch {
            return "cannot create the font cache folder \(error.path): \(error.errno)"
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot read the font cache folder \(path): \(Errno.current)" }
        if info.st_uid != geteuid() {
            return "the font cache folder \(path) belongs to user \(info.st_uid), not to this user (\(geteuid())), so fonts planted in it "
                + "could be packed: use a folder of your own (--font-cache)"
        }
        if info.st_mode & 0o022 != 0 {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            return "the font cache folder \(path) can be written by other users (mode \(mode)), so fonts planted in it could be packed: "
                + "run chmod go-w on it, or use another folder (--font-cache)"
        }
        return nil
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
