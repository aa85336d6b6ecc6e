import Foundation
import LarderCache
import LarderFormat
import LarderSystem

/// What one ``CaptureQueue/deliver(to:batchSize:maxBatches:)`` call did.
public struct CaptureDelivery: Sendable, Equatable {
    /// Events the sink accepted and the queue then removed.
    public var delivered: Int
    /// Events the destination refused for good, removed from the queue undelivered.
    public var refused: [CaptureRefusal]
    /// Events still queued when the call returned (0 when the queue could not be read at all;
    /// ``error`` then says why).
    public var remaining: Int
    /// Why delivery stopped before the queue was empty or the batch bound was reached; nil
    /// otherwise, including when another delivery was already running.
    public var error: HostError?

    /// - Parameters:
    ///   - delivered: events the sink accepted.
    ///   - refused: events refused for good.
    ///   - remaining: events still queued.
    ///   - error: why delivery stopped early, if it did.
    public init(delivered: Int, refused: [CaptureRefusal] = [], remaining: Int, error: HostError? = nil) {
        self.delivered = delivered
        self.refused = refused
        self.remaining = remaining
        self.error = error
    }

    /// Equal when the counts and refusals match and the errors have the same code (or both
    /// are nil).
    public static func == (lhs: CaptureDelivery, rhs: CaptureDelivery) -> Bool {
        lhs.delivered == rhs.delivered && lhs.refused == rhs.refused && lhs.remaining == rhs.remaining
            && lhs.error?.code == rhs.error?.code
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
    private let state: Locked<State>

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
        state = Locked(State(store: try CaptureStore(path: path, deliveredRetention: deliveredRetention)))
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
    ///   delivered or refused (the last 10,000 such ids are remembered).
    /// - Throws: ``HostError`` with code ``HostError/Code/malformedDocument`` when the id is
    ///   empty or an attribution field holds a control character (it could not travel in an
    ///   HTTP header); ``HostError/Code/storage`` when the write fails (nothing was stored).
    @discardableResult
    public func enqueue(_ event: CaptureEvent) throws(HostError) -> Bool {
        try Self.validate(event)
        return try state.withLock { (state) throws(HostError) -> Bool in try state.store.insert(event) }
    }

    /// ``enqueue(_:)`` for a thread that must not wait (an actor's): nil, storing nothing,
    /// when another connection holds the queue's write lock at this moment.
    package func enqueueWithoutWaiting(_ event: CaptureEvent) throws(HostError) -> Bool? {
        try Self.validate(event)
        return try state.withLock { (state) throws(HostError) -> Bool? in try state.store.insertWithoutWaiting(event) }
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

    /// The number of queued events of one journey.
    /// - Throws: ``HostError`` with code ``HostError/Code/storage`` when the file cannot be read.
    public func pendingCount(journey: String) throws(HostError) -> Int {
        try state.withLock { (state) throws(HostError) -> Int in try state.store.count(journey: journey) }
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
    /// Events leave the queue, and their ids are remembered, only after the sink returned and
    /// only as far as it settled them (delivered, or refused for good: a refused event is
    /// dropped so it cannot block the queue). The first event the sink could not settle stops
    /// delivery and stays queued with everything after it. Delivery is at least once: if
    /// recording a settled batch fails, the sink sees it again later. A call made while
    /// another one on this queue is running returns at once with `delivered` 0; the running
    /// one also takes events enqueued meanwhile.
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
        var refused: [CaptureRefusal] = []
        for _ in 0..<max(0, maxBatches) {
            if Task.isCancelled {
                return CaptureDelivery(
                    delivered: delivered, refused: refused, remaining: remaining,
                    error: HostError(.cancelled, "capture delivery was cancelled; the rest stays queued"))
            }
            do {
                let (batch, count) = try state.withLock { (state) throws(HostError) -> ([QueuedEvent], Int) in
                    (try state.store.pending(limit: batchSize), try state.store.count())
                }
                remaining = count
                if batch.isEmpty { break }
                let receipt = await sink.deliver(batch.map(\.event))
                let settled = Array(batch.prefix(max(0, receipt.settled)))
                if !settled.isEmpty {
                    remaining = try state.withLock { (state) throws(HostError) -> Int in
                        try state.store.markSettled(settled)
                    }
                }
                let settledIDs = Set(settled.map(\.event.id))
                let refusedNow = receipt.refused.filter { settledIDs.contains($0.id) }
                refused += refusedNow
                delivered += settled.count - refusedNow.count
                if settled.count < batch.count || receipt.error != nil {
                    let error =
                        receipt.error
                        ?? HostError(.unavailable, "the capture sink settled \(settled.count) of \(batch.count) events without saying why")
                    return CaptureDelivery(delivered: delivered, refused: refused, remaining: remaining, error: error)
                }
            } catch {
                return CaptureDelivery(delivered: delivered, refused: refused, remaining: remaining, error: error)
            }
        }
        return CaptureDelivery(delivered: delivered, refused: refused, remaining: remaining)
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
