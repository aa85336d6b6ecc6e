import Foundation
import LarderFormat

/// What a host knows about its scope without asking the origin.
public struct JourneyStatus: Sendable, Equatable {
    public var journey: String
    /// The last authorised configuration: revision and bundle.
    public var revision: Int64?
    public var bundle: Digest?
    /// The refresh interval the host uses for it, in seconds: what the document asks for
    /// (``requestedRefresh``), clamped to 10–30 min (``FreshnessPolicy``).
    public var refresh: Int64?
    /// The refresh interval the document asks for, in seconds.
    public var requestedRefresh: Int64?
    /// When the origin last authorised it (nil when never).
    public var renewed: Date?
    /// What that means for a new presentation by this host: `requiresFetch` also when the
    /// origin has not authorised it since this host started (a restart needs fresh
    /// authorisation); nil when never authorised.
    public var freshness: FreshnessPolicy.Decision?
    /// Whether the origin authorised the scope since this host was created.
    public var authorisedSinceStart: Bool
    /// Whether the bundle is complete in the cache (usable offline).
    public var cached: Bool
    /// Consecutive failures, and when the next attempt may be made.
    public var failures: Int
    public var nextAttempt: Date?
    /// Captured events waiting for delivery, of every journey.
    public var pendingCaptures: Int
    /// Those of them captured for this journey.
    public var journeyCaptures: Int
    /// The last definitive denial of the scope (401, 403, a confirmed 404), kept after the
    /// content it discarded; nil when none, or once the origin authorised the scope again.
    public var denial: JourneyDenial?
}

/// A definitive answer from the origin that the scope may not show its journey.
public struct JourneyDenial: Sendable, Equatable {
    /// 401, 403 or 404 (a confirmed 404: the journey was removed).
    public var status: Int
    /// When it arrived (the confirming 404 for a removal).
    public var time: Date
    /// True when the cached revision stays in service (``RemovedJourneyPolicy/keepServing``);
    /// false when the content was discarded.
    public var contentKept: Bool

    public init(status: Int, time: Date, contentKept: Bool) {
        self.status = status
        self.time = time
        self.contentKept = contentKept
    }
}

extension JourneyHost {
    /// The stored state of the current scope; reads only local state, and answers while
    /// another call waits on the cache's lock.
    public func status() async throws(HostError) -> JourneyStatus {
        let configuration = configuration
        let (record, cached) = try storedState(configuration.scope)
        let document = record.document
        let journey = try cachedFlow(of: record)
        let queue = try captureQueue()
        let pending = try queue.pendingCount()
        let ofJourney = try queue.pendingCount(journey: configuration.journeyID)
        return JourneyStatus(
            journey: configuration.journeyID, revision: document?.revision, bundle: document?.bundle,
            refresh: document?.window.refreshInterval.components.seconds,
            requestedRefresh: document?.refresh, renewed: record.renewed, freshness: journey.flatMap { freshness(of: $0) },
            authorisedSinceStart: lifecycle.isAuthorised(configuration.scope), cached: cached,
            failures: record.failures, nextAttempt: record.notBefore, pendingCaptures: pending,
            journeyCaptures: ofJourney,
            denial: zip(record.deniedStatus, record.deniedAt).map {
                JourneyDenial(status: $0, time: $1, contentKept: record.keptAfterRemoval)
            })
    }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
