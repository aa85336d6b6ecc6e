import Foundation
import LarderFormat
import LarderSQLite
import Synchronization

/// A queued event with its insertion sequence number.
struct QueuedEvent {
    var sequence: Int64
    var event: CaptureEvent
}

/// The queue's SQLite file. Not thread-safe: ``CaptureQueue`` holds it behind its mutex.
///
/// Strings are stored as UTF-8 blobs (so none is cut at a NUL), the context as canonical JSON,
/// the created date as the bit pattern of its `timeIntervalSinceReferenceDate` (exact).
final class CaptureStore {
    static let format = "larder-capture-queue"
    static let schemaVersion = 1

    let path: String
    let database: HostDatabase
    let deliveredRetention: Int

    init(path: String, deliveredRetention: Int) throws(HostError) {
        self.path = path
        self.deliveredRetention = deliveredRetention
        try Self.checkHeader(path)
        do {
            database = try HostDatabase(path: path)
        } catch {
            throw HostError(storage: error, "cannot open the capture queue at \(path)")
        }
        // Read-only checks first: a foreign database is refused before anything is written.
        let problem = try sql("read") { () throws(HostStorageError) -> String? in
            let tables = try database.prepare("SELECT count(*) FROM sqlite_master")
            return try tables.step() && tables.int(0) > 0 ? try metaProblem() : nil
        }
        if let problem { throw Self.foreign(problem, path: path) }
        var found: String?
        do throws(HostStorageError) {
            try database.switchToWAL(lockPath: path + ".setup-lock")
            try database.execute("PRAGMA synchronous=FULL")
            try database.transaction { () throws(HostStorageError) in
                try database.execute(
                    """
                    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS events(
                        seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE, visitor BLOB, session BLOB,
                        journey BLOB, revision INTEGER NOT NULL, bundle TEXT NOT NULL, context BLOB NOT NULL,
                        body BLOB, created INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS delivered(seq INTEGER PRIMARY KEY AUTOINCREMENT, id BLOB NOT NULL UNIQUE);
                    INSERT OR IGNORE INTO meta(key, value) VALUES('format', '\(Self.format)');
                    INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '\(Self.schemaVersion)');
                    """)
                try database.prepare("INSERT OR IGNORE INTO meta(key, value) VALUES('visitor', ?)")
                    .bind(.text(UUID().uuidString.lowercased())).run()
                // Another process may have made another database here since the check above.
                found = try metaProblem()
                if let found { throw HostStorageError(.failed, found, path: path) }  // rolls the transaction back
            }
            try Self.addMissingColumns(to: database)
        } catch {
            if let found { throw Self.foreign(found, path: path) }
            throw HostError(storage: error, "cannot set up the capture queue at \(path)")
        }
    }

    /// ``HostError/Code/storage`` for a file that is not a capture queue of this schema (or a
    /// damaged one): ``HostStorageError/Code/foreign``, its message naming the path.
    private static func foreign(_ message: String, path: String) -> HostError {
        HostError(storage: HostStorageError(.foreign, message), "the capture queue cannot be used")
    }

    /// Refuses a non-empty file that does not start with SQLite's header, without opening it
    /// for writing.
    private static func checkHeader(_ path: String) throws(HostError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return }
        guard !isFolder.boolValue else { throw foreign("\(path) is a folder, not a capture queue; choose a file path", path: path) }
        var header = [UInt8](repeating: 0, count: 16)
        var count = 0
        do {
            let file = try ReadableFile(path: path)
            while count < header.count {
                let read = try header.withUnsafeMutableBytes { (buffer) throws(FormatError) -> Int in
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
                }
                if read == 0 { break }
                count += read
            }
        } catch {
            throw HostError(storage: HostStorageError(.failed, "\(error)"), "cannot read the capture queue")
        }
        guard count == 0 || header == Array("SQLite format 3\0".utf8) else {
            throw foreign(
                "\(path) is not a capture queue (not an SQLite database); it was left untouched, move it away or choose another path",
                path: path)
        }
    }

    /// What is wrong with the meta table: nil when it says this is a capture queue of this
    /// schema.
    private func metaProblem() throws(HostStorageError) -> String? {
        let hasMeta = try database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").step()
        guard hasMeta, try value(forKey: "format") == Self.format else {
            return "\(path) holds another SQLite database, not a capture queue; it was left untouched"
        }
        let schema = try value(forKey: "schema")
        guard schema == String(Self.schemaVersion) else {
            return "the capture queue at \(path) has schema \(schema ?? "none"), this Larder reads \(Self.schemaVersion); it was left untouched"
        }
        return nil
    }

    private func value(forKey key: String) throws(HostStorageError) -> String? {
        let query = try database.prepare("SELECT value FROM meta WHERE key = ?").bind(.text(key))
        return try query.step() ? query.text(0) : nil
    }

    /// Runs `body`'s SQLite calls, turning their failure into ``HostError/Code/storage`` (with
    /// a ``HostStorageError``) naming the action.
    private func sql<T>(_ action: String, _ body: () throws(HostStorageError) -> T) throws(HostError) -> T {
        do { return try body() } catch {
            throw HostError(storage: error, "cannot \(action) the capture queue at \(path)")
        }
    }

    func visitor() throws(HostError) -> String {
        let visitor = try sql("read") { () throws(HostStorageError) in try value(forKey: "visitor") }
        guard let visitor, !visitor.isEmpty else {
            throw Self.foreign("the capture queue at \(path) has lost its visitor id; remove the file", path: path)
        }
        return visitor
    }

    /// Inserts `event` unless its id is queued or was delivered.
    func insert(_ event: CaptureEvent) throws(HostError) -> Bool {
        try sql("write") { () throws(HostStorageError) in try insertRow(event) }
    }

    /// ``insert(_:)`` without waiting for a lock another connection holds: nil, with nothing
    /// changed, when one does.
    func insertWithoutWaiting(_ event: CaptureEvent) throws(HostError) -> Bool? {
        try sql("write") { () throws(HostStorageError) in try database.withoutWaiting { () throws(HostStorageError) in try insertRow(event) } }
    }

    private func insertRow(_ event: CaptureEvent) throws(HostStorageError) -> Bool {
        try database.transaction { () throws(HostStorageError) -> Bool in
            let id = SQLiteValue.blob(Array(event.id.utf8))
            let seen = try database.prepare("SELECT 1 FROM events WHERE id = ?1 UNION ALL SELECT 1 FROM delivered WHERE id = ?1")
            if try seen.bind(id).step() { return false }
            let context = event.contextJSON
            try database.prepare(
                """
                INSERT INTO events(id, visitor, session, journey, revision, bundle, context, body, created, rollout)
                VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).bind(
                id, .blob(Array(event.visitor.utf8)), .blob(Array(event.session.utf8)),
                .blob(Array(event.journey.utf8)), .int(event.revision), .text(event.bundle.description),
                .blob(context), .blob(event.body),
                .int(Int64(bitPattern: event.created.timeIntervalSinceReferenceDate.bitPattern)),
                event.assignment.map { .text(Self.rolloutText($0)) } ?? .null
            ).run()
            return true
        }
    }

    func pending(limit: Int) throws(HostError) -> [QueuedEvent] {
        let rows = try sql("read") { () throws(HostStorageError) -> [Row] in
            let query = try database.prepare(
                "SELECT seq, id, visitor, session, journey, revision, bundle, context, body, created, rollout FROM events ORDER BY seq LIMIT ?"
            ).bind(.int(Int64(max(0, limit))))
            var rows: [Row] = []
            while try query.step() {
                rows.append(
                    Row(
                        sequence: query.int(0), id: query.blob(1), visitor: query.blob(2), session: query.blob(3),
                        journey: query.blob(4), revision: query.int(5), bundle: query.text(6), context: query.blob(7),
                        body: query.blob(8), created: query.int(9), rollout: query.isNull(10) ? nil : query.text(10)))
            }
            return rows
        }
        var events: [QueuedEvent] = []
        for row in rows { events.append(try decode(row)) }
        return events
    }

    /// One `events` row as stored.
    private struct Row {
        var sequence: Int64
        var id, visitor, session, journey: [UInt8]
        var revision: Int64
        var bundle: String
        var context, body: [UInt8]
        var created: Int64
        var rollout: String?
    }

    private func decode(_ row: Row) throws(HostError) -> QueuedEvent {
        let text = { (bytes: [UInt8]) in String(decoding: bytes, as: UTF8.self) }
        let damaged = { (what: String) in
            Self.foreign("the capture queue at \(self.path) holds event '\(text(row.id).prefix(80))' with a damaged \(what); remove the file", path: self.path)
        }
        let bundle: Digest
        do { bundle = try Digest(parsing: row.bundle) } catch { throw damaged("bundle digest") }
        // A JSON object of any values (before the host-wide context, only strings).
        guard case .object(let context)? = try? JSONValue.parse(row.context) else { throw damaged("context") }
        var event = CaptureEvent(
            id: text(row.id), visitor: text(row.visitor), session: text(row.session), journey: text(row.journey),
            revision: row.revision, bundle: bundle, context: [:], body: row.body,
            created: Date(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(bitPattern: row.created))))
        event.contextValues = context
        if let rollout = row.rollout {
            guard let assignment = Self.assignment(rollout) else { throw damaged("rollout assignment") }
            event.assignment = assignment
        }
        return QueuedEvent(sequence: row.sequence, event: event)
    }

    func count() throws(HostError) -> Int {
        try sql("read") { () throws(HostStorageError) -> Int in
            let query = try database.prepare("SELECT count(*) FROM events")
            return try query.step() ? Int(query.int(0)) : 0
        }
    }

    /// Queued events of one journey.
    func count(journey: String) throws(HostError) -> Int {
        try sql("read") { () throws(HostStorageError) -> Int in
            let query = try database.prepare("SELECT count(*) FROM events WHERE journey = ?").bind(.blob(Array(journey.utf8)))
            return try query.step() ? Int(query.int(0)) : 0
        }
    }

    /// Removes settled events (delivered or refused for good) and remembers their ids, keeping
    /// the most recent `deliveredRetention`. - Returns: the number of events still queued.
    func markSettled(_ batch: [QueuedEvent]) throws(HostError) -> Int {
        try sql("record a delivery in") { () throws(HostStorageError) -> Int in
            try database.transaction { () throws(HostStorageError) -> Int in
                let delete = try database.prepare("DELETE FROM events WHERE seq = ?")
                let remember = try database.prepare("INSERT OR IGNORE INTO delivered(id) VALUES(?)")
                for queued in batch {
                    try delete.bind(.int(queued.sequence)).run()
                    try remember.bind(.blob(Array(queued.event.id.utf8))).run()
                }
                try database.prepare(
                    "DELETE FROM delivered WHERE seq < (SELECT seq FROM delivered ORDER BY seq DESC LIMIT 1 OFFSET ?)"
                ).bind(.int(Int64(deliveredRetention - 1))).run()
                let query = try database.prepare("SELECT count(*) FROM events")
                return try query.step() ? Int(query.int(0)) : 0
            }
        }
    }

    func removeAll() throws(HostError) {
        try sql("clear") { () throws(HostStorageError) in
            try database.transaction { () throws(HostStorageError) in try database.execute("DELETE FROM events") }
        }
    }
}

/// The `rollout` column, added after the first release (``RolloutAssignment``): NULL without a
/// rollout, else "<bucket> <percent> <new|previous>". A queue written by an older host gains it
/// when opened, its events keeping a NULL.
extension CaptureStore {
    static let laterColumns = [("rollout", "TEXT")]

    /// Adds the columns later versions added, if missing, inside one write transaction (another
    /// process opening the same queue finds them there).
    static func addMissingColumns(to database: HostDatabase) throws(HostStorageError) {
        guard try !missingColumns(in: database).isEmpty else { return }
        try database.transaction { () throws(HostStorageError) in
            for (name, type) in try missingColumns(in: database) {
                try database.execute("ALTER TABLE events ADD COLUMN \(name) \(type)")
            }
        }
    }

    private static func missingColumns(in database: HostDatabase) throws(HostStorageError) -> [(String, String)] {
        let info = try database.prepare("PRAGMA table_info(events)")
        var present = Set<String>()
        while try info.step() { present.insert(info.text(1)) }
        return laterColumns.filter { !present.contains($0.0) }
    }

    static func rolloutText(_ assignment: RolloutAssignment) -> String {
        "\(assignment.bucket) \(assignment.percent) \(assignment.side.rawValue)"
    }

    static func assignment(_ text: String) -> RolloutAssignment? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, let bucket = Int(parts[0]), (0...99).contains(bucket), let percent = Int(parts[1]), (1...99).contains(percent),
            let side = RolloutAssignment.Side(rawValue: String(parts[2]))
        else { return nil }
        return RolloutAssignment(bucket: bucket, percent: percent, side: side)
    }
}
