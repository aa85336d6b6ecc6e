import Foundation
import LarderTransport

/// The capture lane: the durable queue of captured events, the captures waiting for its write
/// lock, and where delivery sends them.
///
/// Owned by and isolated to one ``JourneyHost``; it holds no other component's state, and
/// changes only through its own methods. The queue opens on first use: preparing and
/// presenting need no capture storage.
final class CaptureLane {
    private let path: String
    /// The queue once opened.
    private var opened: CaptureQueue?
    /// The last of the captures waiting, in order, for a write lock another connection holds
    /// on the capture queue; nil when none waits. Later captures queue behind it.
    private(set) var backlog: Task<Void, Never>?
    /// How many captures wait in ``backlog``.
    private var backlogCount = 0
    /// When queued events are delivered unasked (``CaptureDrain``).
    private(set) var drain = CaptureDrain()
    /// The drain run under way, if any.
    private(set) var drainTask: Task<Void, Never>?
    /// The timer waiting out the drain's backoff (``CaptureDrain/Action/wait(until:)``).
    private var retryTask: Task<Void, Never>?
    /// The task listening to the connectivity signal.
    private var listening: Task<Void, Never>?
    /// Where captured events go; nil posts them to the capture endpoint.
    private let sink: (any CaptureSink)?

    /// - Parameters:
    ///   - path: the capture queue's database.
    ///   - sink: where captured events go; nil posts them to the capture endpoint.
    init(path: String, sink: (any CaptureSink)?) {
        self.path = path
        self.sink = sink
    }

    /// The durable capture queue, opened on first use.
    /// - Throws: ``HostError/Code/storage`` when it cannot be opened.
    func queue() throws(HostError) -> CaptureQueue {
        if let opened { return opened }
        let queue = try CaptureQueue(path: path)
        opened = queue
        return queue
    }

    /// Where delivery sends the queued events for `configuration`: the injected sink, else the
    /// capture endpoint (by default the origin's `/capture`).
    func sink(for configuration: JourneyConfiguration, transport: any HTTPTransport) -> any CaptureSink {
        sink ?? HTTPCaptureSink(
            endpoint: configuration.capture?.endpoint ?? configuration.requestOrigin.appendingPathComponent("capture"),
            publishableKey: configuration.publishableKey, transport: transport)
    }

    /// Whether a capture must wait behind others already waiting for the lock.
    var isBacklogged: Bool { backlog != nil }

    /// `task` (which awaits ``backlog`` first) is the last capture waiting now.
    func joinBacklog(_ task: Task<Void, Never>) {
        backlogCount += 1
        backlog = task
    }

    /// Counts one capture out of the backlog; the backlog ends with its last.
    func leftBacklog() {
        backlogCount -= 1
        if backlogCount == 0 { backlog = nil }
    }

    /// Applies an event to the drain (only its events can change it) and returns what to do;
    /// ``JourneyHost`` performs it.
    func drain(_ event: (inout CaptureDrain) -> CaptureDrain.Action) -> CaptureDrain.Action { event(&drain) }

    /// Keeps the drain run under way.
    func keepDrainTask(_ task: Task<Void, Never>) { drainTask = task }

    /// Keeps the timer of the drain's backoff, cancelling one kept before.
    func keepRetryTask(_ task: Task<Void, Never>) {
        retryTask?.cancel()
        retryTask = task
    }

    /// Keeps the task listening to the connectivity signal.
    func listen(_ task: Task<Void, Never>) {
        listening?.cancel()
        listening = task
    }

    /// Stops listening to the connectivity signal and waiting out the backoff (disposal).
    func stopListening() {
        listening?.cancel()
        listening = nil
        retryTask?.cancel()
        retryTask = nil
    }

    deinit {
        listening?.cancel()
        retryTask?.cancel()
    }
}
