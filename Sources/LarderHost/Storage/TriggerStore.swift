import Foundation
import LarderFormat
import LarderSQLite
import LarderSystem

/// What a trigger router remembers about its origin's triggers document.
struct TriggerRecord: Sendable, Equatable {
    /// The last authorised triggers document, and its validator.
    var document: TriggerDocument?
    var etag: String?
    /// When the origin last answered for it (a 200, a 304 answering our validator, or a 404:
    /// nothing published).
    var renewed: Date?
    /// Consecutive failed requests, and when the next may be made.
    var failures = 0
    var notBefore: Date?
    /// The origin's last definitive denial of the key (401, 403); nil once it answered again.
    var deniedStatus: Int?
    /// The highest revision accepted: a document below it is a rollback (kept across a denial).
    var highest: Int64?
}

/// A trigger router's persistent state (SQLite, WAL, `triggers.sqlite` in the storage folder):
/// the triggers document per origin and key, so triggers work offline and after a restart,
/// and which journey each person was shown when (reentry), so "once" holds across restarts
/// until a logout forgets it.
final class TriggerStore: Sendable {
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
                CREATE TABLE IF NOT EXISTS documents(
                    scope TEXT PRIMARY KEY, document BLOB, etag TEXT, renewed_ms INTEGER, failures INTEGER NOT NULL,
                    not_before_ms INTEGER, denied_status INTEGER, highest INTEGER);
                CREATE TABLE IF NOT EXISTS reentry(person TEXT NOT NULL, journey TEXT NOT NULL, shown_ms INTEGER NOT NULL,
                    PRIMARY KEY(person, journey));
                """)
            self.database = Locked(database)
        } catch {
            throw HostError(storage: error, "cannot open the trigger state at \(path)")
        }
    }

    /// The record of `scope` (an origin and key); empty before the first answer.
    func record(_ scope: String) throws(HostError) -> TriggerRecord {
        try sql("read the trigger state") { (database) throws(HostStorageError) -> TriggerRecord in
            let statement = try database.prepare(
                "SELECT document, etag, renewed_ms, failures, not_before_ms, denied_status, highest FROM documents WHERE scope = ?"
            ).bind(.text(scope))
            guard try statement.step() else { return TriggerRecord() }
            var record = TriggerRecord()
            if !statement.isNull(0) {
                do { record.document = try TriggerDocument(decoding: statement.blob(0)) } catch {
                    // A document that no longer parses is as good as none: asked again.
                    record.document = nil
                }
            }
            record.etag = statement.isNull(1) ? nil : statement.text(1)
            record.renewed = statement.isNull(2) ? nil : Date(milliseconds: statement.int(2))
            record.failures = Int(statement.int(3))
            record.notBefore = statement.isNull(4) ? nil : Date(milliseconds: statement.int(4))
            record.deniedStatus = statement.isNull(5) ? nil : Int(statement.int(5))
            record.highest = statement.isNull(6) ? nil : statement.int(6)
            return record
        }
    }

    /// Stores the record of `scope`.
    func save(_ record: TriggerRecord, for scope: String) throws(HostError) {
        try sql("write the trigger state") { (database) throws(HostStorageError) in
            try database.prepare(
                """
                INSERT OR REPLACE INTO documents(scope, document, etag, renewed_ms, failures, not_before_ms, denied_status, highest)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).bind(
                .text(scope), record.document.map { .blob($0.canonicalBytes) } ?? .null, record.etag.map { .text($0) } ?? .null,
                record.renewed.map { .int($0.milliseconds) } ?? .null, .int(Int64(record.failures)),
                record.notBefore.map { .int($0.milliseconds) } ?? .null, record.deniedStatus.map { .int(Int64($0)) } ?? .null,
                record.highest.map { .int($0) } ?? .null
            ).run()
        }
    }

    /// When `journey` was last shown to `person` by a trigger; nil when never (since a logout).
    func lastShown(_ journey: String, to person: String) throws(HostError) -> Date? {
        try sql("read the trigger state") { (database) throws(HostStorageError) -> Date? in
            let statement = try database.prepare("SELECT shown_ms FROM reentry WHERE person = ? AND journey = ?").bind(.text(person), .text(journey))
            return try statement.step() ? Date(milliseconds: statement.int(0)) : nil
        }
    }

    /// Records that `journey` was shown to `person` at `time`.
    func recordShown(_ journey: String, to person: String, at time: Date) throws(HostError) {
        try sql("write the trigger state") { (database) throws(HostStorageError) in
            try database.prepare("INSERT OR REPLACE INTO reentry(person, journey, shown_ms) VALUES (?, ?, ?)")
                .bind(.text(person), .text(journey), .int(time.milliseconds)).run()
        }
    }

    /// Forgets what `person` was shown (a logout); every person's when nil (a logout of
    /// everything).
    func forgetShown(to person: String?) throws(HostError) {
        try sql("write the trigger state") { (database) throws(HostStorageError) in
            if let person {
                try database.prepare("DELETE FROM reentry WHERE person = ?").bind(.text(person)).run()
            } else {
                try database.execute("DELETE FROM reentry")
            }
        }
    }

    private func sql<T: Sendable>(_ action: String, _ body: (HostDatabase) throws(HostStorageError) -> T) throws(HostError) -> T {
        do {
            return try database.withLock { (database) throws(HostStorageError) -> T in
                let connection = database
                return try body(connection)
            }
        } catch {
            throw HostError(storage: error, "cannot \(action)")
        }
    }
}
