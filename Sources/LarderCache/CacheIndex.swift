import LarderFormat
import LarderSQLite

/// One bundle as the index knows it.
public struct CachedBundle: Sendable, Equatable {
    public var digest: Digest
    public var name: String
    /// Bytes of the bundle's distinct objects.
    public var size: Int64
    public var fileCount: Int
    /// Milliseconds since 1970.
    public var installedAt: Int64
    public var lastUsed: Int64
    public var pinned: Bool
    public var embedded: Bool
    /// False once an object of it was quarantined; refetch it.
    public var complete: Bool
}

/// The SQLite index of a cache folder: what bundles exist, which objects they use, scopes,
/// leases, holds on objects and counters. A bundle exists only once its row commits, after all its objects.
///
/// There is no table of objects: the object store is the `objects/` folder itself (a file is
/// there only once it is durable), and an install writes rows only where its bundle's rows
/// go, never one row per object at a random place in a big tree. How many objects the bundles
/// use, and their bytes, are running totals in `counters` (see `CacheIndex+Objects.swift`).
final class CacheIndex {
    let database: IndexDatabase

    /// 2: no `objects` table (a view of `files` instead), object sizes in `files`, a
    /// `quarantined` table and stored totals in `counters`.
    static let schemaVersion = 2

    /// - Parameter setupLock: a lock file held exclusively while a new index switches to WAL
    ///   (SQLite does not wait for that switch), so processes opening a new cache at once
    ///   take turns.
    init(path: String, setupLock: String) throws(CacheError) {
        database = try IndexDatabase(path: path)
        try setUp(setupLock: setupLock)
    }

    /// Opens an index only to read it: nothing is created or written. With no index file (nil),
    /// or one another process is still creating (no tables yet), the index is an empty one kept
    /// in memory: a cache that is not there (yet) reads as empty.
    /// - Throws: ``CacheError/Code/readOnly`` when it cannot be read without writing,
    ///   ``CacheError/Code/storage`` when another Larder version wrote it or it is damaged.
    init(readingOnly path: String?) throws(CacheError) {
        if let path, let existing = try Self.openForReading(path) {
            database = existing
        } else {
            database = try IndexDatabase(path: ":memory:")
            try createTables()
        }
    }

    /// The index at `path` opened read-only, or nil when it has no tables yet.
    private static func openForReading(_ path: String) throws(CacheError) -> IndexDatabase? {
        let database = try IndexDatabase(readingOnly: path)
        try database.execute("PRAGMA mmap_size=268435456")
        try database.execute("PRAGMA cache_size=-16384")
        let tables = try database.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
        guard try tables.step(), tables.int(0) == 1 else { return nil }
        let version = try database.prepare("SELECT value FROM meta WHERE key = 'schema'")
        // The tables and the version row commit together, so a table without its row is damage.
        guard try version.step() else { throw CacheError(.storage, "the cache index has no schema version; purge it", path: path) }
        guard version.text(0) == String(Self.schemaVersion) else {
            throw CacheError(.storage, "the cache index was written by another Larder version; purge it", path: path)
        }
        return database
    }

    /// Switches a new index to WAL and creates its tables.
    private func setUp(setupLock: String) throws(CacheError) {
        try database.switchToWAL(lockPath: setupLock)
        try database.execute("PRAGMA synchronous=FULL")
        try database.execute("PRAGMA foreign_keys=ON")
        // Reads through a memory map and a larger page cache: a full index (100,000 objects)
        // is a few tens of megabytes, and lookups then cost no system calls.
        try database.execute("PRAGMA mmap_size=268435456")
        try database.execute("PRAGMA cache_size=-16384")
        try createTables()
    }

    /// Creates the tables that are missing, in one transaction, checking the schema version.
    private func createTables() throws(CacheError) {
        try database.transaction { () throws(CacheError) in
            try database.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            let version = try database.prepare("SELECT value FROM meta WHERE key = 'schema'")
            if try version.step(), version.text(0) != String(Self.schemaVersion) {
                throw CacheError(.storage, "the cache index was written by another Larder version; purge it", path: database.path)
            }
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS bundles(
                    digest TEXT PRIMARY KEY, name TEXT NOT NULL, manifest BLOB NOT NULL, size INTEGER NOT NULL,
                    file_count INTEGER NOT NULL, installed_at INTEGER NOT NULL, last_used INTEGER NOT NULL,
                    pinned INTEGER NOT NULL DEFAULT 0, embedded INTEGER NOT NULL DEFAULT 0,
                    complete INTEGER NOT NULL DEFAULT 1);
                CREATE TABLE IF NOT EXISTS files(
                    bundle TEXT NOT NULL REFERENCES bundles(digest) ON DELETE CASCADE, path TEXT NOT NULL,
                    object TEXT NOT NULL, size INTEGER NOT NULL, media_type TEXT NOT NULL, role TEXT NOT NULL,
                    PRIMARY KEY(bundle, path)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS quarantined(digest TEXT PRIMARY KEY) WITHOUT ROWID;
                CREATE VIEW IF NOT EXISTS objects(digest, size) AS
                    SELECT object, MAX(size) FROM files WHERE object NOT IN (SELECT digest FROM quarantined) GROUP BY object;
                CREATE TABLE IF NOT EXISTS scopes(
                    scope TEXT NOT NULL, bundle TEXT NOT NULL REFERENCES bundles(digest) ON DELETE CASCADE,
                    PRIMARY KEY(scope, bundle)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS leases(
                    bundle TEXT NOT NULL, pid INTEGER NOT NULL, token INTEGER NOT NULL, start TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY(bundle, pid, token)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS object_holds(
                    object TEXT NOT NULL, pid INTEGER NOT NULL, token INTEGER NOT NULL, start TEXT NOT NULL DEFAULT '',
                    PRIMARY KEY(object, pid, token)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS deferred_removals(
                    bundle TEXT PRIMARY KEY REFERENCES bundles(digest) ON DELETE CASCADE) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS counters(name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS scope_labels(scope TEXT PRIMARY KEY, label TEXT NOT NULL) WITHOUT ROWID;
                INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '\(Self.schemaVersion)');
                """)
            try addLeaseHolderStarts()
        }
    }

    // MARK: Bundles

    func bundle(_ digest: Digest) throws(CacheError) -> CachedBundle? {
        let query = try database.prepare(
            "SELECT name, size, file_count, installed_at, last_used, pinned, embedded, complete FROM bundles WHERE digest = ?")
        try query.bind(.text(digest.description))
        guard try query.step() else { return nil }
        return record(digest, query, offset: 0)
    }

    private func record(_ digest: Digest, _ row: Statement<CacheError>, offset: Int32) -> CachedBundle {
        CachedBundle(
            digest: digest, name: row.text(offset), size: row.int(offset + 1), fileCount: Int(row.int(offset + 2)),
            installedAt: row.int(offset + 3), lastUsed: row.int(offset + 4), pinned: row.int(offset + 5) != 0,
            embedded: row.int(offset + 6) != 0, complete: row.int(offset + 7) != 0)
    }

    func bundles() throws(CacheError) -> [CachedBundle] {
        let query = try database.prepare(
            "SELECT digest, name, size, file_count, installed_at, last_used, pinned, embedded, complete FROM bundles ORDER BY last_used DESC, digest")
        var result: [CachedBundle] = []
        while try query.step() {
            result.append(record(try query.digest(0), query, offset: 1))
        }
        return result
    }

    /// Bundles that lost an object to corruption (`complete = 0`), sorted.
    func incompleteBundles() throws(CacheError) -> [Digest] {
        let query = try database.prepare("SELECT digest FROM bundles WHERE complete = 0 ORDER BY digest")
        var digests: [Digest] = []
        while try query.step() { digests.append(try query.digest(0)) }
        return digests
    }

    func manifest(_ digest: Digest) throws(CacheError) -> Manifest? {
        let query = try database.prepare("SELECT manifest FROM bundles WHERE digest = ?")
        try query.bind(.text(digest.description))
        guard try query.step() else { return nil }
        do { return try Manifest(decoding: query.blob(0), naming: digest) } catch {
            throw CacheError(.storage, "the stored manifest is damaged; purge the cache", digest: digest, cause: error)
        }
    }

    /// Records a fully written bundle. Call inside a transaction, after its objects are in place.
    /// - Parameter placed: the objects this install moved into the store; they (and objects of
    ///   the bundle back from quarantine) are added to the stored totals.
    func insertBundle(
        _ verified: VerifiedManifest, embedded: Bool, now: Int64, placed: Set<Digest>
    ) throws(CacheError) {
        let (manifest, bytes, digest) = (verified.manifest, verified.bytes, verified.digest)
        var sizes: [Digest: Int64] = [:]
        for file in manifest.files { sizes[file.digest] = file.size }
        let restored = try releaseFromQuarantine(Set(sizes.keys))
        let added = sizes.filter { placed.contains($0.key) || restored.contains($0.key) }
        try addToStored(objects: added.count, bytes: added.values.reduce(0, +))
        if try bundle(digest) != nil {
            try database.prepare("UPDATE bundles SET complete = 1, embedded = MAX(embedded, ?), last_used = ? WHERE digest = ?")
                .bind(.int(embedded ? 1 : 0), .int(now), .text(digest.description)).run()
            try cancelDeferredRemoval(digest)  // installed again: wanted again
            return
        }
        try database.prepare(
            "INSERT INTO bundles(digest, name, manifest, size, file_count, installed_at, last_used, embedded) VALUES(?, ?, ?, ?, ?, ?, ?, ?)"
        ).bind(
            .text(digest.description), .text(manifest.name), .blob(bytes), .int(sizes.values.reduce(0, +)),
            .int(Int64(manifest.files.count)), .int(now), .int(now), .int(embedded ? 1 : 0)
        ).run()
        let insertFile = try database.prepare(
            "INSERT INTO files(bundle, path, object, size, media_type, role) VALUES(?, ?, ?, ?, ?, ?)")
        for file in manifest.files {
            try insertFile.bind(
                .text(digest.description), .text(file.path), .text(file.digest.description), .int(file.size),
                .text(file.mediaType), .text(file.role.rawValue)
            ).run()
        }
    }

    /// Marks a complete bundle used now.
    /// - Returns: false when no complete bundle has that digest (any more).
    func touch(_ digest: Digest, now: Int64) throws(CacheError) -> Bool {
        try database.prepare("UPDATE bundles SET last_used = ? WHERE digest = ? AND complete = 1").bind(.int(now), .text(digest.description)).run()
        return database.changes > 0
    }

    func setPinned(_ digest: Digest, _ pinned: Bool) throws(CacheError) -> Bool {
        try database.prepare("UPDATE bundles SET pinned = ? WHERE digest = ?").bind(.int(pinned ? 1 : 0), .text(digest.description)).run()
        let changed = database.changes > 0
        if pinned { try cancelDeferredRemoval(digest) }
        return changed
    }

    /// Bundles to remove on logout: all but the embedded default.
    func nonEmbeddedBundles() throws(CacheError) -> [Digest] {
        let query = try database.prepare("SELECT digest FROM bundles WHERE embedded = 0")
        var digests: [Digest] = []
        while try query.step() { digests.append(try query.digest(0)) }
        return digests
    }

    // MARK: Scopes

    func setScope(_ scope: String, bundles keep: Set<Digest>) throws(CacheError) -> (dropped: [Digest], missing: [Digest]) {
        let current = try database.prepare("SELECT bundle FROM scopes WHERE scope = ?")
        try current.bind(.text(scope))
        var dropped: [Digest] = []
        while try current.step() {
            let digest = try current.digest(0)
            if !keep.contains(digest) { dropped.append(digest) }
        }
        let remove = try database.prepare("DELETE FROM scopes WHERE scope = ? AND bundle = ?")
        for digest in dropped { try remove.bind(.text(scope), .text(digest.description)).run() }
        var missing: [Digest] = []
        let add = try database.prepare("INSERT OR IGNORE INTO scopes(scope, bundle) VALUES(?, ?)")
        for digest in keep.sorted() {
            if let bundle = try bundle(digest), bundle.complete {
                try add.bind(.text(scope), .text(digest.description)).run()
                try cancelDeferredRemoval(digest)
            } else {
                missing.append(digest)
            }
        }
        return (dropped, missing)
    }

    /// Names a scope for people (`cache ls`); a scope that keeps no bundle loses its name.
    func setScopeLabel(_ scope: String, _ label: String?) throws(CacheError) {
        let held = try database.prepare("SELECT 1 FROM scopes WHERE scope = ? LIMIT 1").bind(.text(scope))
        if try !held.step() {
            try database.prepare("DELETE FROM scope_labels WHERE scope = ?").bind(.text(scope)).run()
        } else if let label {
            try database.prepare("INSERT OR REPLACE INTO scope_labels(scope, label) VALUES(?, ?)").bind(.text(scope), .text(label)).run()
        }
    }

    /// The scopes holding each bundle: their labels, or their ids when unnamed. An index
    /// written before scopes had labels (opened read-only, so not upgraded) gives ids.
    func scopesByBundle() throws(CacheError) -> [Digest: [String]] {
        let labelled = try database.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'scope_labels'")
        let hasLabels = try labelled.step() && labelled.int(0) == 1
        let query = try database.prepare(
            hasLabels
                ? "SELECT s.bundle, IFNULL(l.label, s.scope) FROM scopes s LEFT JOIN scope_labels l ON l.scope = s.scope ORDER BY 2"
                : "SELECT bundle, scope FROM scopes ORDER BY 2")
        var result: [Digest: [String]] = [:]
        while try query.step() { result[try query.digest(0), default: []].append(query.text(1)) }
        return result
    }

    /// Bundles that no scope keeps, that are not pinned or embedded.
    func unscoped(_ candidates: [Digest]) throws(CacheError) -> [Digest] {
        let query = try database.prepare(
            "SELECT 1 FROM bundles b WHERE b.digest = ? AND b.pinned = 0 AND b.embedded = 0 AND NOT EXISTS (SELECT 1 FROM scopes s WHERE s.bundle = b.digest)")
        var result: [Digest] = []
        for digest in candidates {
            try query.bind(.text(digest.description))
            if try query.step() { result.append(digest) }
        }
        return result
    }

    // MARK: Counters

    func increment(_ counter: String, by amount: Int64 = 1) throws(CacheError) {
        try database.prepare("INSERT INTO counters(name, value) VALUES(?, ?) ON CONFLICT(name) DO UPDATE SET value = value + excluded.value")
            .bind(.text(counter), .int(amount)).run()
    }

    func counter(_ counter: String) throws(CacheError) -> Int64 {
        let query = try database.prepare("SELECT value FROM counters WHERE name = ?")
        try query.bind(.text(counter))
        return try query.step() ? query.int(0) : 0
    }

}
