import LarderCache
import LarderFormat
import LarderSystem

/// What a renderer is given to show: a leased bundle of a journey revision.
public struct RenderContent: Sendable {
    public var journey: String
    public var revision: Int64
    /// The lease that keeps the bundle in the cache while it is loaded.
    public var lease: BundleLease
    /// The cache, for `larder-font://` URLs.
    public var cache: LarderCache
    /// What the content reads as `window.larder.context` from its first script on, as JSON
    /// values: the presentation's context (the host-wide context under the presentation's own,
    /// ``JourneyConfiguration/context``) for a direct presentation (loaded when visible), empty
    /// for content loaded hidden ahead of one (it gets its context when shown,
    /// ``PresentationSession/contextValues``).
    public var contextValues: [String: JSONValue]

    /// ``contextValues`` as strings: a string as it is, any other value as its canonical JSON
    /// text; setting it replaces every value with a string.
    public var context: [String: String] {
        get { contextValues.stringValues }
        set { contextValues = newValue.mapValues(JSONValue.string) }
    }

    public init(journey: String, revision: Int64, lease: BundleLease, cache: LarderCache, context: [String: String] = [:]) {
        self.journey = journey
        self.revision = revision
        self.lease = lease
        self.cache = cache
        self.contextValues = context.mapValues(JSONValue.string)
    }

    public var bundle: Digest { lease.bundle }
    public var manifest: Manifest { lease.manifest }
}

/// One presentation: a new id each time content is shown.
public struct PresentationSession: Sendable, Hashable {
    public var id: String
    public var journey: String
    public var revision: Int64
    public var bundle: Digest
    /// The presentation's context as JSON values: the host-wide context
    /// (``JourneyConfiguration/context``) under what the app passed to
    /// ``JourneyHost/present(contextValues:preload:)`` (or ``JourneyHost/present(context:preload:)``).
    /// The content reads it as `window.larder.context` once shown, and hears it in a
    /// `larder:context` event.
    public var contextValues: [String: JSONValue]

    /// ``contextValues`` as strings: a string as it is, any other value as its canonical JSON
    /// text; setting it replaces every value with a string.
    public var context: [String: String] {
        get { contextValues.stringValues }
        set { contextValues = newValue.mapValues(JSONValue.string) }
    }
    /// A preview of a given bundle (``JourneyHost/preview(bundle:context:)``), not the
    /// journey's revision: ``revision`` is 0 and its captures carry `larder:preview`.
    public var preview: Bool
    /// Where the presented content came from (nil for a session made outside a host).
    public var source: ContentSource?
    /// When its revision was published, ISO 8601 in UTC (nil for the embedded default).
    public var published: String?
    /// Which side of a staged rollout this identity is on; nil without one.
    public var assignment: RolloutAssignment?

    public init(id: String, journey: String, revision: Int64, bundle: Digest, context: [String: String] = [:], preview: Bool = false) {
        self.id = id
        self.journey = journey
        self.revision = revision
        self.bundle = bundle
        self.contextValues = context.mapValues(JSONValue.string)
        self.preview = preview
    }
}

extension [String: JSONValue] {
    /// Each value as a string: a string as it is, any other value as its canonical JSON text.
    var stringValues: [String: String] {
        mapValues { value in
            if case .string(let text) = value { return text }
            return String(decoding: value.canonicalBytes, as: UTF8.self)
        }
    }
}

/// Something that happened to a renderer by itself, not in answer to a call.
public enum RendererEvent: Sendable, Equatable {
    /// The engine behind the content ended on its own (a web process crashed, was killed or
    /// went over its memory limit): what was loaded is gone, and the next load starts afresh.
    case terminated(reason: String)
}

/// Delivers messages from a renderer's content to the host (and through it to the app), within
/// ``BridgeLimits``: what content posts past them is refused and counted, never delivered; and
/// what happens to the renderer by itself (``RendererEvent``). The host makes one per renderer
/// and cuts it off on disposal.
public final class RendererBridge: Sendable {
    private let handler: @Sendable (BridgeMessage) -> Void
    private let events: @Sendable (RendererEvent) -> Void
    /// The bounds messages are held to.
    public let limits: BridgeLimits
    let clock: any HostClock
    let admission: Locked<BridgeAdmission>

    /// - Parameters:
    ///   - limits: the size and rate bounds (``BridgeLimits``).
    ///   - clock: the time the rate limit is measured in.
    ///   - handler: receives each admitted message, in order, on the renderer's thread.
    ///   - events: receives what happens to the renderer by itself.
    public init(
        limits: BridgeLimits = BridgeLimits(), clock: any HostClock = SystemClock(), _ handler: @escaping @Sendable (BridgeMessage) -> Void,
        events: @escaping @Sendable (RendererEvent) -> Void = { _ in }
    ) {
        self.handler = handler
        self.events = events
        self.limits = limits
        self.clock = clock
        self.admission = Locked(BridgeAdmission(limits: limits))
    }

    /// Passes a parsed message on, within the bounds (its size is that of its JSON form,
    /// ``BridgeMessage/json``). Prefer ``receive(_:)``, which refuses an oversized message
    /// before parsing it.
    /// - Returns: false when the message was refused (and counted).
    @discardableResult
    public func send(_ message: BridgeMessage) -> Bool {
        guard admit(bytes: message.json.count) == nil else { return false }
        deliver(message)
        return true
    }

    /// Delivers an admitted message.
    func deliver(_ message: BridgeMessage) { handler(message) }

    /// Tells the host what happened to the renderer.
    public func report(_ event: RendererEvent) { events(event) }
}

/// A renderer of journey content (a web view on devices, ``HeadlessRenderer`` on Linux).
///
/// A renderer that advertises both `Manifest.Capability.prepare` and
/// `Manifest.Capability.visibility` gets prepared presentation: the host loads it hidden,
/// waits until the first screen's essential assets resolved, reuses it for showing and resets
/// it while hidden after dismissal. Any other renderer gets direct presentation: it is loaded
/// only when visible.
public protocol JourneyRenderer: AnyObject, Sendable {
    /// What this renderer can do.
    var capabilities: Set<Manifest.Capability> { get }

    /// The newest renderer protocol version it implements: the host never loads a bundle
    /// whose manifest declares a newer one.
    var protocolVersion: Int { get }

    /// Starts the engine (a web view, a script context) before any content is known; the host
    /// runs it beside the configuration fetch.
    func start(bridge: RendererBridge) async throws(HostError)

    /// Loads content and returns once the first screen's essential assets resolved through
    /// the cache.
    /// - Parameters:
    ///   - visible: false for hidden preparation (content must not record a visit).
    ///   - content: the leased bundle and the document to open.
    /// - Throws: ``HostError/Code/renderer`` naming the resource that failed.
    func load(_ content: RenderContent, visible: Bool) async throws(HostError)

    /// Makes loaded content visible for a presentation.
    func show(_ session: PresentationSession) async throws(HostError)

    /// Hides the content and goes back to its first screen, ready to be shown again.
    func reset() async throws(HostError)

    /// Drops loaded content (memory warning while hidden); ``load(_:visible:)`` may follow.
    func unload() async

    /// Stops for good; no further calls follow.
    func stop() async
}

extension JourneyRenderer {
    /// Whether this renderer can be prepared hidden.
    public var supportsPreparation: Bool { capabilities.isSuperset(of: [.prepare, .visibility]) }
}
