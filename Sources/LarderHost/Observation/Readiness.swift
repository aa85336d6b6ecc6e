import Foundation
import LarderFormat

/// Where presented content came from.
public enum ContentSource: String, Sendable, Equatable {
    /// Fetched from the origin just now (200).
    case network
    /// The origin confirmed the cached copy (304).
    case revalidated
    /// The cache, without asking the origin: fresh, or offline and stale.
    case cache
    /// The bundle shipped with the app.
    case embedded
}

/// A journey revision ready to show: what ``JourneyHost/resolveFlow(forceRefresh:)`` resolves,
/// ``JourneyHost/prepare(forceRefresh:)`` prepares and ``Readiness`` reports, one value from
/// the fallback chain to the screen.
public struct PreparedJourney: Sendable, Equatable {
    public var journey: String
    /// 0 for the embedded default.
    public var revision: Int64
    public var bundle: Digest
    public var source: ContentSource
    /// When its configuration was last authorised (nil for the embedded default).
    public var renewed: Date?
    /// The configuration document it was resolved from (nil for the embedded default). Only
    /// content neither stale nor removed counts as authorised by it
    /// (`JourneyHost.freshness(of:in:)`).
    public var document: JourneyDocument?
    /// True when it came from the cache because the origin could not be asked (offline,
    /// failing, backing off): shown, but not fresh.
    public var stale: Bool
    /// True when the renderer was loaded hidden (prepared presentation); false for direct
    /// presentation, where it loads only once visible, and for a flow only resolved
    /// (``JourneyHost/resolveFlow(forceRefresh:)``), which nothing loads.
    public var preloaded: Bool
    /// True when the origin confirmed the journey is gone and this cached revision is served
    /// anyway (``RemovedJourneyPolicy/keepServing``).
    public var removed = false
    /// Why this revision (an older one, or the embedded default) is served instead of the
    /// authorised one: its bundle needs a renderer this host does not have. Nil otherwise.
    public var fallbackReason: String?
    /// When this revision was published, ISO 8601 in UTC as the journey document says (nil for
    /// the embedded default).
    public var published: String?
    /// Which side of a staged rollout this identity is on (``RolloutAssignment``); nil when the
    /// document has no rollout.
    public var assignment: RolloutAssignment?

    /// - Parameters:
    ///   - document: the configuration document it was resolved from; nil for the embedded
    ///     default.
    ///   - preloaded: false until prepared (``PresentationMode``).
    init(
        journey: String, revision: Int64, bundle: Digest, source: ContentSource, renewed: Date?, document: JourneyDocument?,
        stale: Bool, preloaded: Bool = false, removed: Bool = false, fallbackReason: String? = nil, published: String? = nil,
        assignment: RolloutAssignment? = nil
    ) {
        self.journey = journey
        self.revision = revision
        self.bundle = bundle
        self.source = source
        self.renewed = renewed
        self.document = document
        self.stale = stale
        self.preloaded = preloaded
        self.removed = removed
        self.fallbackReason = fallbackReason
        self.published = published
        self.assignment = assignment
    }
}

/// A flow ready to show: the ``PreparedJourney`` value before anything loads it (the two were
/// one value under two names, copied field by field).
public typealias ResolvedFlow = PreparedJourney

/// How ready a host is to present.
public enum Readiness: Sendable, Equatable {
    case idle
    case preparing
    case ready(PreparedJourney)
    /// A memory warning unloaded the hidden renderer; presenting rebuilds it from the cache.
    case unloaded(PreparedJourney)
    case failed(HostError.Code)
    /// The origin denied the scope (401, 403, confirmed 404); content was discarded.
    case denied(status: Int)
    case disposed
}

/// Whether the journey is on screen.
public enum PresentationState: Sendable, Equatable {
    case hidden
    case presented(PresentationSession)
}

/// One line of what a host did and why, for logs and `larder journey`.
public struct TimelineEntry: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case fetched, revalidated, fresh, servedStale = "served-stale", embedded, denied, failed, rejected
        case backingOff = "backing-off", notFound = "not-found", bundleFetched = "bundle-fetched"
        case rendererReady = "renderer-ready", presented, dismissed, staged, unloaded, refreshScheduled = "refresh-scheduled"
        case rendererTerminated = "renderer-terminated"
        case removed, rendererGate = "renderer-gate", logout, forced
        case discarded, captured, captureDropped = "capture-dropped", captureRefused = "capture-refused", delivered, deadline, disposed, invalidated
        case bridgeRefused = "bridge-refused", foregroundGrace = "foreground-grace"
        /// The bundle chosen left the cache before it was leased (another process evicted it):
        /// resolved again as a cache miss.
        case bundleVanished = "bundle-vanished"
    }

    public var time: Date
    public var kind: Kind
    public var detail: String

    public init(time: Date, kind: Kind, detail: String) {
        self.time = time
        self.kind = kind
        self.detail = detail
    }
}
