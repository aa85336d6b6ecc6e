import Foundation
import LarderCache
import LarderFormat
import Synchronization

/// What one ``CaptureQueue/deliver(to:batchSize:maxBatches:)`` call did.
public struct CaptureDelivery: Sendable, Equatable {
    /// Events the sink accepted and the queue then removed.
    public var delivered: Int
    /// Events still queued when the call returned (0 when the queue could not be read at all;
    /// ``error`` then says why).
    public var remaining: Int
    /// Why delivery stopped before the queue was empty or the batch bound was reached; nil
    /// otherwise, including when another delivery was already running.
    public var error: HostError?

    /// - Parameters:
    ///   - delivered: events the sink accepted.
    ///   - remaining: events still queued.
    ///   - error: why delivery stopped early, if it did.
    public init(delivered: Int, remaining: Int, error: HostError? = nil) {
        self.delivered = delivered
        self.remaining = remaining
        self.error = error
    }

    /// Equal when both counts match and the errors have the same code (or both are nil).
    public static func == (lhs: CaptureDelivery, rhs: CaptureDelivery) -> Bool {
        lhs.delivered == rhs.delivered && lhs.remaining == rhs.remaining && lhs.error?.code == rhs.error?.code
    }
}

/// The durable queue of captured events: one SQLite file (WAL, `synchronous=FULL`), so an
/// event that ``enqueue(_:)`` accepted survives a crash or restart.
///
/// Events keep every field as they were created (visitor, session, revision, context, body
/// byte for byte, created date exactly), so they stay attributed to their original identity
/// and revision whatever the app does later. They leave the queue only through
/// ``deliver(to:batchSize:maxBatches:)``, in creation order, once the sink accepted them, or
/// through ``removeAll()``. Capture does not depend on display authorisation.
///
/// Use one queue object per file in a process: deliveries are serialised within the object,
/// not across processes.
public final class CaptureQueue: Sendable {
    /// The queue file.
    public let path: String
    private let state: Mutex<State>

    private struct State {
        let store: CaptureStore
        var delivering = false
    }

    /// Opens the queue file at `path`, creating it (and a new anonymous visitor id) when it
    /// does not exist.
    ///
    /// - Parameter path: the SQLite file; its folder must exist.
    /// - Throws: ``HostError`` with code ``HostError/Code/storage`` naming the path when the
    ///   file cannot be opened, or is not a capture queue (another file, another SQLite
    ///   database, a newer schema). Such a file is left exactly as it was.
    public convenience init(path: String) throws(HostError) {
        try self.init(path: path, deliveredRetention: 10_000)
    }

    /// Opens the queue remembering the ids of the last `deliveredRetention` delivered events.
    package init(path: String, deliveredRetention: Int) throws(HostError) {
        precondition(deliveredRetention > 0, "deliveredRetention must be positive")
        self.path = path
        state = Mutex(State(store: try CaptureStore(path: path, deliveredRetention: deliveredRetention)))
    }

    /// The anonymous visitor id: a lowercase UUID generated when the file was created and the
    /// same every time it is opened again. ``removeAll()`` keeps it.
    /// - Throws: ``HostError`` with code ``HostError/Code/storage`` when the file cannot be read.
    public func visitor() throws(HostError) -> String {
        try state.withLock { (state) throws(HostError) -> String in try state.store.visitor() }
    }

    /// Stores an event, in one transaction, behind every event already queued.
    ///
    /// - Parameter event: the event with its attribution fixed; stored exactly as given.
    /// - Returns: false, storing nothing, when an event with the same id is queued or was
    ///   delivered (the last 10,000 delivered ids are remembered).
    /// - Throws: ``HostError`` with code ``HostError/Code/malformedDocument`` when the id is
    ///   empty or an attribution field holds a control character (it could not travel in an
    ///   HTTP header); ``HostError/Code/storage`` when the write fails (nothing was stored).
    @discardableResult
    public func enqueue(_ event: CaptureEvent) throws(HostError) -> Bool {
        try Self.validate(event)
        return try state.withLock { (state) throws(HostError) -> Bool in try state.store.insert(event) }
    }

    /// Queued events in creation order, every field as it was enqueued.
    /// - Parameter limit: the most events to return.
    /// - Throws: ``HostError`` with code ``HostError/Code/storage`` when the file cannot be
    ///   read or holds a damaged row.
    public func pending(limit: Int = .max) throws(HostError) -> [CaptureEvent] {
        try state.withLock { (state) throws(HostError) -> [CaptureEvent] in
            try state.store.pending(limit: limit).map(\.event)
        }
    }

    /// The number of queued events.
    /// - Throws: ``HostError`` with code ``HostError/Code/storage`` when the file cannot be read.
    public func pendingCount() throws(HostError) -> Int {
        try state.withLock { (state) throws(HostError) -> Int in try state.store.count() }
    }

    /// Drops every queued event, for logout-style clearing. Undelivered events (answers
    /// included) are lost for good. The visitor id and the remembered delivered ids stay.
    /// - Throws: ``HostError`` with code ``HostError/Code/storage`` when the write fails
    ///   (nothing was removed).
    public func removeAll() throws(HostError) {
        try state.withLock { (state) throws(HostError) in try state.store.removeAll() }
    }

    /// Delivers queued events to `sink` in creation order, a batch at a time.
    ///
    /// A batch leaves the queue, and its ids are remembered as delivered, only after the sink
    /// returned. The first failure stops delivery and keeps that batch and everything after
    /// it queued for a later call. Delivery is at least once: if recording a delivered batch
    /// fails, the sink sees it again later. A call made while another one on this queue is
    /// running returns at once with `delivered` 0; the running one also takes events enqueued
    /// meanwhile.
    ///
    /// - Parameters:
    ///   - sink: where the events go.
    ///   - batchSize: the most events per sink call; positive.
    ///   - maxBatches: the most sink calls this call makes.
    /// - Returns: how many events were delivered and remain, and the error that stopped
    ///   delivery: the sink's, ``HostError/Code/storage`` or ``HostError/Code/cancelled``.
    public func deliver(to sink: any CaptureSink, batchSize: Int = 50, maxBatches: Int = 100) async -> CaptureDelivery {
        precondition(batchSize > 0, "batchSize must be positive")
        var remaining: Int
        do {
            let claim = try state.withLock { (state) throws(HostError) -> (claimed: Bool, count: Int) in
                let count = try state.store.count()
                if state.delivering { return (false, count) }
                state.delivering = true
                return (true, count)
            }
            guard claim.claimed else { return CaptureDelivery(delivered: 0, remaining: claim.count) }
            remaining = claim.count
        } catch {
            return CaptureDelivery(delivered: 0, remaining: 0, error: error)
        }
        defer { state.withLock { $0.delivering = false } }

        var delivered = 0
        for _ in 0..<max(0, maxBatches) {
            if Task.isCancelled {
                return CaptureDelivery(
                    delivered: delivered, remaining: remaining,
                    error: HostError(.cancelled, "capture delivery was cancelled; the rest stays queued"))
            }
            do {
                let (batch, count) = try state.withLock { (state) throws(HostError) -> ([QueuedEvent], Int) in
                    (try state.store.pending(limit: batchSize), try state.store.count())
                }
                remaining = count
                if batch.isEmpty { break }
                try await sink.deliver(batch.map(\.event))
                remaining = try state.withLock { (state) throws(HostError) -> Int in
                    try state.store.markDelivered(batch)
                }
                delivered += batch.count
            } catch {
                return CaptureDelivery(delivered: delivered, remaining: remaining, error: error)
            }
        }
        return CaptureDelivery(delivered: delivered, remaining: remaining)
    }

    private static func validate(_ event: CaptureEvent) throws(HostError) {
        guard !event.id.isEmpty else {
            throw HostError(.malformedDocument, "a capture event has an empty id; give every event a unique id")
        }
        let fields = [("id", event.id), ("visitor", event.visitor), ("session", event.session), ("journey", event.journey)]
        for (name, value) in fields where value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw HostError(
                .malformedDocument,
                "the capture event '\(event.id.debugDescription.prefix(80))' has a control character in its \(name); it cannot be delivered")
        }
    }
}

// MARK: - Storage

/// A queued event with its insertion sequence number.
private struct QueuedEvent {
    var sequence: Int64
    var event: CaptureEvent
}

/// The queue's SQLite file. Not thread-safe: ``CaptureQueue`` holds it behind its mutex.
///
/// Strings are stored as UTF-8 blobs (so none is cut at a NUL), the context as canonical JSON,
/// the created date as the bit pattern of its `timeIntervalSinceReferenceDate` (exact).
private final class CaptureStore {
    static let format = "larder-capture-queue"
    static let schemaVersion = 1

    let path: String
    let database: SQLiteDatabase
    let deliveredRetention: Int

    init(path: String, deliveredRetention: Int) throws(HostError) {
        self.path = path
        self.deliveredRetention = deliveredRetention
        try Self.checkHeader(path)
        do {
            database = try SQLiteDatabase(path: path)
        } catch {
            throw HostError(.storage, "cannot open the capture queue at \(path)", cacheError: error)
        }
        // Read-only checks first: a foreign database is refused before anything is written.
        try sql("read") { () throws(CacheError) in
            let tables = try database.prepare("SELECT count(*) FROM sqlite_master")
            if try tables.step(), tables.int(0) > 0 { try checkMeta() }
        }
        try sql("set up") { () throws(CacheError) in
            try database.execute("PRAGMA journal_mode=WAL")
            try database.execute("PRAGMA synchronous=FULL")
            try database.transaction { () throws(CacheError) in
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
                try checkMeta()
            }
        }
    }

    /// Refuses a non-empty file that does not start with SQLite's header, without opening it
    /// for writing.
    private static func checkHeader(_ path: String) throws(HostError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return }
        guard !isFolder.boolValue else {
            throw HostError(.storage, "\(path) is a folder, not a capture queue; choose a file path")
        }
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
            throw HostError(.storage, "cannot read the capture queue at \(path): \(error)")
        }
        guard count == 0 || header == Array("SQLite format 3\0".utf8) else {
            throw HostError(.storage, "\(path) is not a capture queue (not an SQLite database); it was left untouched, move it away or choose another path")
        }
    }

    /// Throws unless the meta table says this is a capture queue of this schema.
    private func checkMeta() throws(CacheError) {
        let hasMeta = try database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").step()
        guard hasMeta, try value(forKey: "format") == Self.format else {
            throw CacheError(.storage, "\(path) holds another SQLite database, not a capture queue; it was left untouched", path: path)
        }
        let schema = try value(forKey: "schema")
        guard schema == String(Self.schemaVersion) else {
            throw CacheError(.storage, "the capture queue at \(path) has schema \(schema ?? "none"), this Larder reads \(Self.schemaVersion); it was left untouched", path: path)
        }
    }

    private func value(forKey key: String) throws(CacheError) -> String? {
        let query = try database.prepare("SELECT value FROM meta WHERE key = ?").bind(.text(key))
        return try query.step() ? query.text(0) : nil
    }

    /// Runs `body`, turning a ``CacheError`` into ``HostError/Code/storage`` naming the action.
    private func sql<T>(_ action: String, _ body: () throws(CacheError) -> T) throws(HostError) -> T {
        do { return try body() } catch {
            throw HostError(.storage, "cannot \(action) the capture queue at \(path)", cacheError: error)
        }
    }

    func visitor() throws(HostError) -> String {
        let visitor = try sql("read") { () throws(CacheError) in try value(forKey: "visitor") }
        guard let visitor, !visitor.isEmpty else {
            throw HostError(.storage, "the capture queue at \(path) has lost its visitor id; remove the file")
        }
        return visitor
    }

    /// Inserts `event` unless its id is queued or was delivered.
    func insert(_ event: CaptureEvent) throws(HostError) -> Bool {
        try sql("write") { () throws(CacheError) in
            try database.transaction { () throws(CacheError) -> Bool in
                let id = SQLiteValue.blob(Array(event.id.utf8))
                let seen = try database.prepare("SELECT 1 FROM events WHERE id = ?1 UNION ALL SELECT 1 FROM delivered WHERE id = ?1")
                if try seen.bind(id).step() { return false }
                let context = JSONValue.object(event.context.mapValues { .string($0) }).canonicalBytes
                try database.prepare(
                    """
                    INSERT INTO events(id, visitor, session, journey, revision, bundle, context, body, created)
                    VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
                ).bind(
                    id, .blob(Array(event.visitor.utf8)), .blob(Array(event.session.utf8)),
                    .blob(Array(event.journey.utf8)), .int(event.revision), .text(event.bundle.description),
                    .blob(context), .blob(event.body),
                    .int(Int64(bitPattern: event.created.timeIntervalSinceReferenceDate.bitPattern))
                ).run()
                return true
            }
        }
    }

    func pending(limit: Int) throws(HostError) -> [QueuedEvent] {
        let rows = try sql("read") { () throws(CacheError) -> [Row] in
            let query = try database.prepare(
                "SELECT seq, id, visitor, session, journey, revision, bundle, context, body, created FROM events ORDER BY seq LIMIT ?"
            ).bind(.int(Int64(max(0, limit))))
            var rows: [Row] = []
            while try query.step() {
                rows.append(
                    Row(
                        sequence: query.int(0), id: query.blob(1), visitor: query.blob(2), session: query.blob(3),
                        journey: query.blob(4), revision: query.int(5), bundle: query.text(6), context: query.blob(7),
                        body: query.blob(8), created: query.int(9)))
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
    }

    private func decode(_ row: Row) throws(HostError) -> QueuedEvent {
        let text = { (bytes: [UInt8]) in String(decoding: bytes, as: UTF8.self) }
        let damaged = { (what: String) in
            HostError(.storage, "the capture queue at \(self.path) holds event '\(text(row.id).prefix(80))' with a damaged \(what); remove the file")
        }
        let bundle: Digest
        do { bundle = try Digest(parsing: row.bundle) } catch { throw damaged("bundle digest") }
        var context: [String: String] = [:]
        guard case .object(let members)? = try? JSONValue.parse(row.context) else { throw damaged("context") }
        for (key, value) in members {
            guard case .string(let string) = value else { throw damaged("context") }
            context[key] = string
        }
        let event = CaptureEvent(
            id: text(row.id), visitor: text(row.visitor), session: text(row.session), journey: text(row.journey),
            revision: row.revision, bundle: bundle, context: context, body: row.body,
            created: Date(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(bitPattern: row.created))))
        return QueuedEvent(sequence: row.sequence, event: event)
    }

    func count() throws(HostError) -> Int {
        try sql("read") { () throws(CacheError) -> Int in
            let query = try database.prepare("SELECT count(*) FROM events")
            return try query.step() ? Int(query.int(0)) : 0
        }
    }

    /// Removes a delivered batch and remembers its ids, keeping the most recent
    /// `deliveredRetention`. - Returns: the number of events still queued.
    func markDelivered(_ batch: [QueuedEvent]) throws(HostError) -> Int {
        try sql("record a delivery in") { () throws(CacheError) -> Int in
            try database.transaction { () throws(CacheError) -> Int in
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
        try sql("clear") { () throws(CacheError) in
            try database.transaction { () throws(CacheError) in try database.execute("DELETE FROM events") }
        }
    }
}
