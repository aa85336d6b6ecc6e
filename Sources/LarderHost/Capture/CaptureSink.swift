/// Where captured events go. The host hands a sink queued events in creation order, a batch
/// at a time, and removes from the queue exactly the events the sink settled.
public protocol CaptureSink: Sendable {
    /// Delivers `events` in order, stopping at the first one it cannot settle now.
    /// - Returns: how many leading events are settled (accepted, or refused for good), which
    ///   of them were refused, and why the sink stopped before the end of the batch.
    func deliver(_ events: [CaptureEvent]) async -> CaptureReceipt
}

/// What a ``CaptureSink`` did with a batch.
public struct CaptureReceipt: Sendable {
    /// The leading events of the batch that are settled: the destination accepted them or
    /// refused them for good. They leave the queue and are never sent again; the rest stay
    /// queued, in order.
    public var settled: Int
    /// The settled events the destination refused for good, because of the event itself (for
    /// example malformed or too large): dropped undelivered, so they cannot block the queue.
    public var refused: [CaptureRefusal]
    /// Why the sink stopped before the end of the batch; nil when it settled every event.
    public var error: HostError?

    /// - Parameters:
    ///   - settled: leading events accepted or refused for good.
    ///   - refused: which of those were refused, and why.
    ///   - error: why the sink stopped early, if it did.
    public init(settled: Int, refused: [CaptureRefusal] = [], error: HostError? = nil) {
        self.settled = settled
        self.refused = refused
        self.error = error
    }

    /// Every one of `count` events accepted.
    public static func accepted(_ count: Int) -> CaptureReceipt { CaptureReceipt(settled: count) }

    /// Nothing settled: the whole batch stays queued.
    public static func failed(_ error: HostError) -> CaptureReceipt { CaptureReceipt(settled: 0, error: error) }
}

/// An event the destination refused for good.
public struct CaptureRefusal: Sendable, Equatable {
    /// The event's id.
    public var id: String
    /// Why, with code ``HostError/Code/refused`` and the destination's status.
    public var reason: HostError

    public init(id: String, reason: HostError) {
        self.id = id
        self.reason = reason
    }

    /// Equal when the ids and the reasons' codes and statuses match.
    public static func == (lhs: CaptureRefusal, rhs: CaptureRefusal) -> Bool {
        lhs.id == rhs.id && lhs.reason.code == rhs.reason.code && lhs.reason.status == rhs.reason.status
    }
}
