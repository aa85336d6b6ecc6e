import Foundation
import LarderFormat
import LarderSQLite
import LarderSystem

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
    /// The last definitive denial (401, 403, a confirmed 404) and when it arrived; kept after
    /// the content it discarded, so status can say what happened.
    var deniedStatus: Int?
    var deniedAt: Date?
    /// True when a confirmed 404 left the cached revision in service
    /// (``RemovedJourneyPolicy/keepServing``).
    var keptAfterRemoval = false
    /// An older authorised revision whose bundle this host's renderer can load, kept while
    /// the current one needs a newer renderer (see ``RendererGate``).
    var fitting: JourneyDocument?

    /// Whether the origin confirmed the journey is gone and the cached revision is served anyway.
    var isRemovedButKept: Bool { keptAfterRemoval && deniedStatus == 404 }
}

/// The host's persistent state (SQLite, WAL): one row per scope, so backoff and the last
/// authorised document survive a restart.
///
/// A write that changes what the scope may show (a new authorised document, a denial, a
/// logout) waits for the disk (`synchronous=FULL` for that commit): once `prepare()` returned,
/// a power cut must not take away the revision a device presents offline (the power-loss
/// explorer, `Tools/powerloss.sh --durability posix`, saw exactly that while the commits did not
/// wait). Every other write (a renewal, backoff) does not (`synchronous=NORMAL`): a power cut
/// may lose it, which costs one extra request to the origin, never consistency, and keeps a
/// launch's first write, a renewal after a 304, off the disk's latency.
final class HostStore: Sendable {
    let path: String
    let database: Locked<HostDatabase>

    init(path: String) throws(HostError) {
        self.path = path
        do {
            let database = try HostDatabase(path: path)
            try database.switchToWAL(lockPath: path + ".setup-lock")
            try database.execute(
                """
                PRAGMA synchronous=NORMAL;
                CREATE TABLE IF NOT EXISTS scopes(
                    scope TEXT PRIMARY KEY, document BLOB, etag TEXT, renewed_ms INTEGER,
                    failures INTEGER NOT NULL, not_before_ms INTEGER, not_found INTEGER NOT NULL,
                    denied_status INTEGER, denied_ms INTEGER, kept_after_removal INTEGER NOT NULL DEFAULT 0, fitting BLOB);
                CREATE TABLE IF NOT EXISTS accepted(scope TEXT PRIMARY KEY, revision INTEGER NOT NULL, verified BLOB);
                """)
            try Self.addMissingColumns(to: database)
            self.database = Locked(database)
        } catch {
            throw HostError(storage: error, "cannot open the host state at \(path)")
        }
    }

    func record(_ scope: String) throws(HostError) -> ScopeRecord {
        do {
            return try database.withLock { (database) throws(HostStorageError) -> ScopeRecord in
                let statement = try database.prepare(
                    """
                    SELECT document, etag, renewed_ms, failures, not_before_ms, not_found, denied_status, denied_ms,
                        kept_after_removal, fitting FROM scopes WHERE scope = ?
                    """
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
                record.deniedStatus = statement.isNull(6) ? nil : Int(statement.int(6))
                record.deniedAt = statement.isNull(7) ? nil : Date(milliseconds: statement.int(7))
                record.keptAfterRemoval = statement.int(8) != 0
                if !statement.isNull(9) {
                    do { record.fitting = try JourneyDocument(decoding: statement.blob(9)) } catch {
                        // An older revision that no longer parses cannot be fallen back to.
                        record.fitting = nil
                    }
                }
                return record
            }
        } catch {
            throw failure(error, "cannot read the host state")
        }
    }

    /// Stores a scope's record.
    /// - Parameter waiting: false to give up at once, changing nothing, when another
    ///   connection holds the write lock.
    /// - Returns: false when it gave up.
    @discardableResult
    func save(_ record: ScopeRecord, for scope: String, waiting: Bool = true) throws(HostError) -> Bool {
        do {
            return try database.withLock { (database) throws(HostStorageError) -> Bool in
                if waiting {
                    try Self.write(record, for: scope, in: database)
                } else if try database.withoutWaiting({ () throws(HostStorageError) in try Self.write(record, for: scope, in: database) }) == nil {
                    return false
                }
                return true
            }
        } catch {
            throw failure(error, "cannot write the host state")
        }
    }

    private static func write(_ record: ScopeRecord, for scope: String, in database: HostDatabase) throws(HostStorageError) {
        let durable = try changesWhatIsShown(record, for: scope, in: database)
        try waitingForTheDisk(durable, database) { () throws(HostStorageError) in
            try database.prepare(
                """
                INSERT OR REPLACE INTO scopes(scope, document, etag, renewed_ms, failures, not_before_ms, not_found,
                    denied_status, denied_ms, kept_after_removal, fitting)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).bind(
                .text(scope), record.document.map { .blob($0.canonicalBytes) } ?? .null,
                record.etag.map { .text($0) } ?? .null,
                record.renewed.map { .int($0.milliseconds) } ?? .null,
                .int(Int64(record.failures)), record.notBefore.map { .int($0.milliseconds) } ?? .null,
                .int(Int64(record.notFound)), record.deniedStatus.map { .int(Int64($0)) } ?? .null,
                record.deniedAt.map { .int($0.milliseconds) } ?? .null,
                .int(record.keptAfterRemoval ? 1 : 0),
                record.fitting.map { .blob($0.canonicalBytes) } ?? .null
            ).run()
        }
    }

    /// Whether `record` names another document, or another denial, than the stored row.
    private static func changesWhatIsShown(_ record: ScopeRecord, for scope: String, in database: HostDatabase) throws(HostStorageError) -> Bool {
        let statement = try database.prepare("SELECT document, denied_status FROM scopes WHERE scope = ?").bind(.text(scope))
        guard try statement.step() else { return record.document != nil || record.deniedStatus != nil }
        let stored = statement.isNull(0) ? nil : statement.blob(0)
        let denied = statement.isNull(1) ? nil : Int(statement.int(1))
        return stored != record.document?.canonicalBytes || denied != record.deniedStatus
    }

    /// Runs `body`, one autocommit write, with `synchronous=FULL` when `durable` (its commit
    /// syncs the WAL, and with it every earlier commit), then back to `NORMAL`.
    private static func waitingForTheDisk(_ durable: Bool, _ database: HostDatabase, _ body: () throws(HostStorageError) -> Void) throws(HostStorageError) {
        guard durable else { return try body() }
        try database.execute("PRAGMA synchronous=FULL")
        do {
            try body()
        } catch {
            try database.execute("PRAGMA synchronous=NORMAL")
            throw error
        }
        try database.execute("PRAGMA synchronous=NORMAL")
    }

    /// Forgets a scope entirely (logout): document, validator, backoff and denial.
    func delete(_ scope: String) throws(HostError) {
        do {
            try database.withLock { (database) throws(HostStorageError) in
                try Self.waitingForTheDisk(true, database) { () throws(HostStorageError) in
                    try database.prepare("DELETE FROM scopes WHERE scope = ?").bind(.text(scope)).run()
                }
            }
        } catch {
            throw failure(error, "cannot write the host state")
        }
    }

    /// Forgets every scope (logout of everything); the accepted revisions stay, so a rollback
    /// is still refused after it.
    func deleteAllScopes() throws(HostError) {
        do {
            try database.withLock { (database) throws(HostStorageError) in
                try Self.waitingForTheDisk(true, database) { () throws(HostStorageError) in try database.execute("DELETE FROM scopes") }
            }
        } catch {
            throw failure(error, "cannot write the host state")
        }
    }

    /// ``HostError/Code/storage`` for a failed SQLite call, saying what was being done.
    func failure(_ error: HostStorageError, _ action: String) -> HostError {
        HostError(storage: error, action)
    }

    /// Columns added after the first release, added to a state written by an older host.
    private static let laterColumns = [
        ("denied_status", "INTEGER"), ("denied_ms", "INTEGER"), ("kept_after_removal", "INTEGER NOT NULL DEFAULT 0"),
        ("fitting", "BLOB"),
    ]

    /// Adds the columns later versions added, if missing. Several processes may open the same
    /// new store at once: the check is repeated inside one write transaction, so only the first
    /// adds them and the others find them there.
    private static func addMissingColumns(to database: HostDatabase) throws(HostStorageError) {
        guard try !missingColumns(in: database).isEmpty else { return }
        try database.transaction { () throws(HostStorageError) in
            for (name, type) in try missingColumns(in: database) {
                try database.execute("ALTER TABLE scopes ADD COLUMN \(name) \(type)")
            }
        }
    }

    private static func missingColumns(in database: HostDatabase) throws(HostStorageError) -> [(name: String, type: String)] {
        let info = try database.prepare("PRAGMA table_info(scopes)")
        var present = Set<String>()
        while try info.step() { present.insert(info.text(1)) }
        return laterColumns.filter { !present.contains($0.0) }.map { (name: $0.0, type: $0.1) }
    }
}

extension Date {
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }
}
