import Foundation
import LarderCache
import LarderFormat

/// What the host remembers about one scope across restarts.
struct ScopeRecord: Sendable, Equatable {
    /// The last authorised configuration document, and its validator.
    var document: JourneyDocument?
    var etag: String?
    /// When freshness was last renewed (a 200, or a 304 answering our validator).
    var renewed: Date?
    /// Consecutive failed attempts, and when the next attempt may be made.
    var failures = 0
    var notBefore: Date?
    /// Consecutive 404 answers; the second confirms the journey is gone.
    var notFound = 0
}

/// The host's persistent state (SQLite, WAL): one row per scope, so backoff and the last
/// authorised document survive a restart. Commits do not wait for the disk
/// (`synchronous=NORMAL`): a power cut may lose the last record, which costs one extra request
/// to the origin, never consistency, and keeps a launch's first write off the disk's latency.
final class HostStore: Sendable {
    let database: Locked<SQLiteDatabase>

    init(path: String) throws(HostError) {
        do {
            let database = try SQLiteDatabase(path: path)
            try database.execute(
                """
                PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
                CREATE TABLE IF NOT EXISTS scopes(
                    scope TEXT PRIMARY KEY, document BLOB, etag TEXT, renewed_ms INTEGER,
                    failures INTEGER NOT NULL, not_before_ms INTEGER, not_found INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS accepted(scope TEXT PRIMARY KEY, revision INTEGER NOT NULL);
                """)
            self.database = Locked(database)
        } catch {
            throw HostError(.storage, "cannot open the host state at \(path)", cacheError: error)
        }
    }

    func record(_ scope: String) throws(HostError) -> ScopeRecord {
        do {
            return try database.with { (database) throws(CacheError) -> ScopeRecord in
                let statement = try database.prepare(
                    "SELECT document, etag, renewed_ms, failures, not_before_ms, not_found FROM scopes WHERE scope = ?"
                ).bind(.text(scope))
                guard try statement.step() else { return ScopeRecord() }
                var record = ScopeRecord()
                if !statement.isNull(0) {
                    do { record.document = try JourneyDocument(decoding: statement.blob(0)) } catch {
                        // A document that no longer parses is as good as none: fetch again.
                        record.document = nil
                    }
                }
                record.etag = statement.isNull(1) ? nil : statement.text(1)
                record.renewed = statement.isNull(2) ? nil : Date(milliseconds: statement.int(2))
                record.failures = Int(statement.int(3))
                record.notBefore = statement.isNull(4) ? nil : Date(milliseconds: statement.int(4))
                record.notFound = Int(statement.int(5))
                return record
            }
        } catch {
            throw HostError(.storage, "cannot read the host state", cacheError: error)
        }
    }

    /// Stores a scope's record.
    /// - Parameter waiting: false to give up at once, changing nothing, when another
    ///   connection holds the write lock.
    /// - Returns: false when it gave up.
    @discardableResult
    func save(_ record: ScopeRecord, for scope: String, waiting: Bool = true) throws(HostError) -> Bool {
        do {
            return try database.with { (database) throws(CacheError) -> Bool in
                if waiting {
                    try Self.write(record, for: scope, in: database)
                } else if try database.withoutWaiting({ () throws(CacheError) in try Self.write(record, for: scope, in: database) }) == nil {
                    return false
                }
                return true
            }
        } catch {
            throw HostError(.storage, "cannot write the host state", cacheError: error)
        }
    }

    private static func write(_ record: ScopeRecord, for scope: String, in database: SQLiteDatabase) throws(CacheError) {
                try database.prepare(
                    """
                    INSERT OR REPLACE INTO scopes(scope, document, etag, renewed_ms, failures, not_before_ms, not_found)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
                ).bind(
                    .text(scope), record.document.map { .blob($0.canonicalBytes) } ?? .null,
                    record.etag.map { .text($0) } ?? .null, record.renewed.map { .int($0.milliseconds) } ?? .null,
                    .int(Int64(record.failures)), record.notBefore.map { .int($0.milliseconds) } ?? .null,
                    .int(Int64(record.notFound))
                ).run()
    }
}

extension Date {
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }
}
