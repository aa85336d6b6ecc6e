import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// A flow ready to show: its revision, its bundle (complete in the cache) and where it came from.
public struct ResolvedFlow: Sendable, Equatable {
    public var journey: String
    /// 0 for the embedded default.
    public var revision: Int64
    public var bundle: Digest
    public var source: ContentSource
    /// When the origin last authorised it (nil for the embedded default).
    public var renewed: Date?
    /// The configuration document (nil for the embedded default).
    public var document: JourneyDocument?
    /// True when it was served from the cache after the origin could not be asked.
    public var stale: Bool
    /// True when the origin confirmed the journey is gone and the cached revision is served
    /// under ``RemovedJourneyPolicy/keepServing``.
    public var removed = false
    /// Why an older revision or the embedded default is served instead of the authorised
    /// one (its bundle needs a renderer this host does not have); nil otherwise.
    public var fallbackReason: String?
    /// True when it is inside the refresh window's second half: shown at once, refreshed in
    /// the background.
    var needsRefresh = false
    /// When its revision was published (the document's ISO 8601 date; nil for the embedded default).
    public var published: String?
    /// Which side of a staged rollout this identity is on; nil without one.
    public var assignment: RolloutAssignment?
}

extension JourneyHost {
    /// Resolves the flow, walking the fallback chain: fresh cache, a live fetch with a hard
    /// deadline, the stale cache, the embedded default.
    /// - Parameter forceRefresh: skip the fresh cache and ask the origin (seed 002's
    ///   `forceRefresh: true`, behind a pull to refresh): without a live answer within the
    ///   deadline (or during a backoff, which still holds) the rest of the chain serves the
    ///   flow, its ``ResolvedFlow/fallbackReason`` saying why.
    /// - Throws: ``HostError/Code/denied`` when the origin denied the scope (denied content
    ///   is never reused), otherwise the live fetch's error when nothing can be shown.
    public func resolveFlow(forceRefresh: Bool = false) async throws(HostError) -> ResolvedFlow {
        try checkUsable()
        return try await resolve(forceRefresh: forceRefresh)
    }

    /// ``resolveFlow(forceRefresh:)`` for callers to whom a missing flow is normal: nil when
    /// there is nothing to show (the app then shows its own screen).
    public func resolveFlowIfAvailable(forceRefresh: Bool = false) async -> ResolvedFlow? {
        do { return try await resolveFlow(forceRefresh: forceRefresh) } catch { return nil }
    }

    /// The flow to show: the fallback chain, then the renderer gate. A bundle the chain chose
    /// that leaves the cache before the gate reads its manifest (another process evicted it) is
    /// a cache miss: the chain runs again, which fetches it or falls back as for any miss.
    func resolve(forceRefresh: Bool = false) async throws(HostError) -> ResolvedFlow {
        var attempt = 1
        while true {
            let flow = try await resolveAuthorised(forceRefresh: forceRefresh && attempt == 1)
            do { return try await gated(flow) } catch where Self.vanished(error) && attempt < Self.vanishedBundleAttempts {
                noteVanished(flow.bundle, error)
                attempt += 1
            }
        }
    }

    /// How many times the chain runs for a bundle that keeps leaving the cache between its
    /// choice and its use.
    static let vanishedBundleAttempts = 3

    /// Whether `error` says the bundle is no longer (complete) in the cache.
    static func vanished(_ error: HostError) -> Bool {
        guard error.code == .cache, let code = error.cacheError?.code else { return false }
        return code == .bundleNotFound || code == .bundleIncomplete
    }

    func noteVanished(_ bundle: Digest, _ error: HostError) {
        note(.bundleVanished, "bundle \(bundle) left the cache after it was chosen (\(error)); resolving again as a cache miss")
    }

    /// The fallback chain, before the renderer gate.
    private func resolveAuthorised(forceRefresh: Bool) async throws(HostError) -> ResolvedFlow {
        let configuration = configuration
        let generation = generation
        let scope = configuration.scope
        let (record, complete) = try storedState(scope)
        let start = clock.now
        let decision = zip(record.document, record.renewed).map { freshness(of: $0, renewed: $1) }
        let outcome: LiveOutcome?
        let asked: Bool
        switch FallbackChain.opening(
            freshness: decision, complete: complete, removedButKept: record.isRemovedButKept, notBefore: record.notBefore, now: start,
            fetchRunning: origin.liveFetches[scope] != nil, forceRefresh: forceRefresh)
        {
        case .serveFresh(let refreshInBackground):
            guard let document = record.document, let renewed = record.renewed else { preconditionFailure("fresh without a document") }
            let age = DurationText.describe(start.duration(since: renewed))
            if authorisedThisLaunch.contains(scope) {
                note(.fresh, "revision \(document.revision) is \(age) old: shown from the cache")
            } else {
                note(.fresh, "cache first: revision \(document.revision) (\(age) old) shown from the cache, revalidated behind it")
            }
            var flow = try flow(document, renewed: renewed, source: .cache, stale: false)
            flow.needsRefresh = refreshInBackground
            return flow
        case .backingOff(let notBefore):
            // Within a backoff nothing asks the origin, so the record read above is current.
            outcome = .failed(backingOff(until: notBefore))
            asked = false
        case .askOrigin:
            if forceRefresh { note(.forced, "a forced refresh: the cached render is skipped, asking the origin") }
            outcome = try await Deadline.run(clock: clock, until: start.adding(configuration.fetchDeadline)) {
                await self.live(configuration, generation: generation)
            }
            asked = true
            guard generation == self.generation else { throw HostError(.cancelled, "the configuration changed") }
        }
        var failure: HostError
        switch outcome {
        case .authorised(let document, let renewed, let source)?:
            return try flow(document, renewed: renewed, source: source, stale: false)
        case .denied(let status)?:
            throw HostError(.denied, "the origin denied journey '\(configuration.journeyID)'", status: status)
        case .failed(let error)?:
            failure = error
        case nil:
            note(.deadline, "no answer within \(DurationText.describe(configuration.fetchDeadline)); the fetch goes on in the background")
            failure = HostError(.unavailable, "the origin did not answer within \(DurationText.describe(configuration.fetchDeadline))")
        }
        let (latest, latestComplete) = asked ? try storedState(scope) : (record, complete)
        let staleAllowed = servesStale
        if !staleAllowed, let withheld = latest.document, latestComplete {
            note(.failed, "require authorisation: revision \(withheld.revision) is not shown after a restart without fresh authorisation")
            failure.message += "; the cached revision \(withheld.revision) is not shown before the origin authorises it in this launch (startup: require-authorisation)"
        }
        switch FallbackChain.rest(staleComplete: latest.document != nil && latestComplete, staleAllowed: staleAllowed) {
        case .serveStale:
            guard let document = latest.document else { preconditionFailure("stale without a document") }
            let age = latest.renewed.map { DurationText.describe(clock.now.duration(since: $0)) } ?? "unknown"
            note(.servedStale, "revision \(document.revision) from the cache (\(age) old): \(failure.message)")
            var flow = try flow(document, renewed: latest.renewed, source: .cache, stale: true)
            flow.removed = latest.isRemovedButKept
            flow.fallbackReason = FallbackChain.fallbackReason(forced: forceRefresh, failure: failure.message)
            return flow
        case .embeddedOrFail:
            if let embedded = try await embeddedDefault() {
                note(.embedded, "the embedded default: \(failure.message)")
                return ResolvedFlow(
                    journey: configuration.journeyID, revision: 0, bundle: embedded, source: .embedded, renewed: nil, document: nil,
                    stale: false, fallbackReason: FallbackChain.fallbackReason(forced: forceRefresh, failure: failure.message))
            }
            throw failure
        }
    }

    /// Notes that the origin is not asked before `notBefore`; the error to report.
    func backingOff(until notBefore: Date) -> HostError {
        note(.backingOff, "not asking the origin before \(Self.iso(notBefore))")
        return HostError(.backingOff, "the next attempt may be made at \(Self.iso(notBefore))")
    }

    /// The embedded default's bundle, imported into the cache on first use; nil when the
    /// configuration has none.
    func embeddedDefault() async throws(HostError) -> Digest? {
        if let embeddedBundle { return embeddedBundle }
        guard let path = configuration.embeddedDefault else { return nil }
        let bundle = try await importEmbedded(path)
        embeddedBundle = bundle
        return bundle
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }
}

private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
