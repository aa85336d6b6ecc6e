import LarderCache
import LarderFormat

/// The renderer driver: the renderer, its start, the bridge its content talks over, what
/// happens to it by itself, and the renderer gate's verdicts.
///
/// Owned by and isolated to one ``JourneyHost``; it holds no other component's state, and
/// changes only through its own methods. The host starts the renderer and the listening tasks
/// (they call back into it); the driver keeps them, and cancels them when it goes.
final class RendererDriver {
    let renderer: any JourneyRenderer
    /// The renderer's start, shared by every preparation; nil until asked for, or after it
    /// failed (the next preparation starts it again).
    private(set) var start: Task<Void, any Error>?
    /// The renderer gate's verdict per bundle: nil when it fits, else why not.
    private var gateVerdicts: [Digest: String?] = [:]
    let bridge: RendererBridge
    /// The bridge's incoming messages, until ``takeBridgeMessages()`` hands them out.
    private var bridgeMessages: AsyncStream<BridgeMessage>?
    /// The task passing the bridge's messages on.
    private var bridgeTask: Task<Void, Never>?
    /// What happens to the renderer by itself (``RendererEvent``), until
    /// ``takeRendererEvents()`` hands it out.
    private var rendererEvents: AsyncStream<RendererEvent>?
    /// The task handling ``RendererEvent``s.
    private var rendererEventTask: Task<Void, Never>?

    init(renderer: any JourneyRenderer, clock: any HostClock) {
        self.renderer = renderer
        let (incoming, continuation) = AsyncStream.makeStream(of: BridgeMessage.self)
        let (events, eventContinuation) = AsyncStream.makeStream(of: RendererEvent.self)
        bridge = RendererBridge(clock: clock, { message in continuation.yield(message) }, events: { event in eventContinuation.yield(event) })
        bridgeMessages = incoming
        rendererEvents = events
    }

    deinit {
        bridgeTask?.cancel()
        rendererEventTask?.cancel()
    }

    /// The bridge's messages, once: nil when already listened to.
    func takeBridgeMessages() -> AsyncStream<BridgeMessage>? {
        guard bridgeTask == nil, let incoming = bridgeMessages else { return nil }
        bridgeMessages = nil
        return incoming
    }

    /// The renderer's events, once: nil when already listened to.
    func takeRendererEvents() -> AsyncStream<RendererEvent>? {
        guard rendererEventTask == nil, let incoming = rendererEvents else { return nil }
        rendererEvents = nil
        return incoming
    }

    /// Keeps the task passing the bridge's messages on.
    func listen(bridge task: Task<Void, Never>) { bridgeTask = task }

    /// Keeps the task handling the renderer's events.
    func listen(events task: Task<Void, Never>) { rendererEventTask = task }

    /// Stops passing the bridge's messages and the renderer's events on (disposal).
    func stopListening() {
        bridgeTask?.cancel()
        rendererEventTask?.cancel()
    }

    /// Keeps the renderer's start, for every preparation to share.
    func keepStart(_ task: Task<Void, any Error>) { start = task }

    /// The start failed: the next preparation starts the renderer again.
    func startFailed() { start = nil }

    /// Cancels the start, if still under way (disposal).
    func cancelStart() { start?.cancel() }

    /// Why the renderer cannot load `bundle` (``RendererGate``); nil when it can. Remembered
    /// per bundle (a bundle never changes, nor does the renderer), so a launch decodes a
    /// manifest for the gate once.
    /// - Throws: ``HostError/Code/cache`` when the manifest cannot be read.
    func unfit(_ bundle: Digest, in cache: LarderCache) throws(HostError) -> String? {
        if let known = gateVerdicts[bundle] { return known }
        let manifest: Manifest
        do { manifest = try cache.manifest(bundle) } catch { throw HostError(error) }
        let verdict = RendererGate.mismatch(manifest.renderer, protocolVersion: renderer.protocolVersion, capabilities: renderer.capabilities)
        gateVerdicts[bundle] = .some(verdict)
        return verdict
    }
}
