import Foundation
import LarderFormat
import LarderHost
import LarderSystem

/// A renderer a test drives: it records every call, and its loads can fail or wait.
final class ScriptedRenderer: JourneyRenderer {
    enum LoadBehaviour: Sendable {
        case succeed
        case fail(HostError)
        /// Waits until ``ScriptedRenderer/releaseLoads()``.
        case hang
    }

    struct Record: Sendable {
        var starts = 0
        /// `visible` of each load, in order.
        var loads: [Bool] = []
        var loadedBundles: [Digest] = []
        var shown: [PresentationSession] = []
        var resets = 0
        var unloads = 0
        var stops = 0
        var loaded = false
    }

    let capabilities: Set<Manifest.Capability>
    let protocolVersion: Int
    private let state = Locked((record: Record(), behaviour: LoadBehaviour.succeed, bridge: RendererBridge?.none,
                               waiting: [CheckedContinuation<Void, Never>](), holdsStarts: false,
                               waitingStarts: [CheckedContinuation<Void, Never>]()))

    init(capabilities: Set<Manifest.Capability> = [.prepare, .visibility], protocolVersion: Int = 1) {
        self.capabilities = capabilities
        self.protocolVersion = protocolVersion
    }

    var record: Record { state.withLock { $0.record } }

    var loadBehaviour: LoadBehaviour {
        get { state.withLock { $0.behaviour } }
        set { state.withLock { $0.behaviour = newValue } }
    }

    var waitingLoads: Int { state.withLock { $0.waiting.count } }

    func releaseLoads() {
        let waiting = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// While true, ``start(bridge:)`` waits (after recording the start) until
    /// ``releaseStarts()``: a preparation then stops between resolving its flow and leasing it.
    var holdsStarts: Bool {
        get { state.withLock { $0.holdsStarts } }
        set { state.withLock { $0.holdsStarts = newValue } }
    }

    var waitingStarts: Int { state.withLock { $0.waitingStarts.count } }

    func releaseStarts() {
        let waiting = state.withLock { state in
            defer {
                state.waitingStarts = []
                state.holdsStarts = false
            }
            return state.waitingStarts
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Content posting a message to the app.
    func post(_ message: BridgeMessage) {
        state.withLock { $0.bridge }?.send(message)
    }

    /// The engine ending by itself (a crash): what was loaded is gone, and the host is told.
    func terminate(_ reason: String) {
        let bridge = state.withLock { state in
            state.record.loaded = false
            return state.bridge
        }
        bridge?.report(.terminated(reason: reason))
    }

    func start(bridge: RendererBridge) async throws(HostError) {
        let holds = state.withLock {
            $0.record.starts += 1
            $0.bridge = bridge
            return $0.holdsStarts
        }
        if holds {
            await withCheckedContinuation { continuation in state.withLock { $0.waitingStarts.append(continuation) } }
        }
    }

    func load(_ content: RenderContent, visible: Bool) async throws(HostError) {
        if case .hang = loadBehaviour {
            await withCheckedContinuation { continuation in state.withLock { $0.waiting.append(continuation) } }
        }
        if case .fail(let error) = loadBehaviour { throw error }
        state.withLock {
            $0.record.loads.append(visible)
            $0.record.loadedBundles.append(content.bundle)
            $0.record.loaded = true
        }
    }

    func show(_ session: PresentationSession) async throws(HostError) {
        try state.withLock { (state) throws(HostError) in
            guard state.record.loaded else { throw HostError(.renderer, "nothing loaded") }
            state.record.shown.append(session)
        }
    }

    func reset() async throws(HostError) {
        state.withLock { $0.record.resets += 1 }
    }

    func unload() async {
        state.withLock {
            $0.record.unloads += 1
            $0.record.loaded = false
        }
    }

    func stop() async {
        state.withLock {
            $0.record.stops += 1
            $0.record.loaded = false
            $0.bridge = nil
        }
    }
}
