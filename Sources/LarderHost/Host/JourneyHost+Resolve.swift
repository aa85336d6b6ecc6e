import Foundation
import LarderCache
import LarderFormat
import LarderTransport

extension JourneyHost {
    /// Resolves the flow, walking the fallback chain: fresh cache, a live fetch with a hard
    /// deadline, the stale cache, the embedded default.
    /// - Parameter forceRefresh: skip the fresh cache and ask the origin (behind a
    ///   pull to refresh): without a live answer within the
    ///   deadline (or during a backoff, which still holds) the rest of the chain serves the
    ///   flow, its ``PreparedJourney/fallbackReason`` saying why.
    /// - Returns: the flow, loaded nowhere (``PreparedJourney/preloaded`` is false).
    /// - Throws: ``HostError/Code/denied`` when the origin denied the scope (denied content
    ///   is never reused), otherwise the live fetch's error when nothing can be shown.
    public func resolveFlow(forceRefresh: Bool = false) async throws(HostError) -> PreparedJourney {
        try checkUsable()
        return try await resolve(forceRefresh: forceRefresh).journey
    }

    /// ``resolveFlow(forceRefresh:)`` for callers to whom a missing flow is normal: nil when
    /// there is nothing to show (the app then shows its own screen).
    public func resolveFlowIfAvailable(forceRefresh: Bool = false) async -> PreparedJourney? {
        do { return try await resolveFlow(forceRefresh: forceRefresh) } catch { return nil }
    }

    /// The flow to show: the fallback chain, then the renderer gate; with the freshness
    /// decision the chain took on the cache (nil when it did not serve the fresh cache), so the
    /// preparation acts on it without deciding again. A bundle the chain chose that leaves the
    /// cache before the gate reads its manifest (another process evicted it) is a cache miss:
    /// the chain runs again, which fetches it or falls back as for any miss.
    func resolve(forceRefresh: Bool = false) async throws(HostError) -> (journey: PreparedJourney, freshness: FreshnessPolicy.Decision?) {
        var attempt = 1
        while true {
            let (flow, decision) = try await resolveAuthorised(forceRefresh: forceRefresh && attempt == 1)
            do throws(HostError) { return (try await gated(flow), decision) } catch where Self.vanished(error) && attempt < Self.vanishedBundleAttempts {
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
    private func resolveAuthorised(forceRefresh: Bool) async throws(HostError) -> (PreparedJourney, FreshnessPolicy.Decision?) {
        let configuration = configuration
        let generation = lifecycle.generation
        let scope = configuration.scope
        let (record, complete) = try storedState(scope)
        let start = clock.now
        let cached = try cachedFlow(of: record)
        let decision = cached.flatMap { freshness(of: $0) }
        let outcome: LiveOutcome?
        let asked: Bool
        switch FallbackChain.opening(
            freshness: decision, complete: complete, removedButKept: record.isRemovedButKept, notBefore: record.notBefore, now: start,
            fetchRunning: origin.liveFetch(for: scope) != nil, forceRefresh: forceRefresh)
        {
        case .serveFresh:
            guard let cached, let renewed = cached.renewed else { preconditionFailure("fresh without a document") }
            let age = DurationText.describe(start.duration(since: renewed))
            if lifecycle.isAuthorised(scope) {
                note(.fresh, "revision \(cached.revision) is \(age) old: shown from the cache")
            } else {
                note(.fresh, "cache first: revision \(cached.revision) (\(age) old) shown from the cache, revalidated behind it")
            }
            return (cached, decision)
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
            guard lifecycle.isCurrent(generation) else { throw HostError(.cancelled, "the configuration changed") }
        }
        var failure: HostError
        switch outcome {
        case .authorised(let document, let renewed, let source)?:
            return (try flow(document, renewed: renewed, source: source, stale: false), nil)
        case .denied(let status)?:
            throw HostError(.denied, "the origin denied journey '\(configuration.journeyID)'", status: status)
        case .failed(let error)?:
            failure = error
        case nil:
            note(.deadline, "no answer within \(DurationText.describe(configuration.fetchDeadline)); the fetch goes on in the background")
            failure = HostError(.unavailable, "the origin did not answer within \(DurationText.describe(configuration.fetchDeadline))")
        }
        let (latest, latestComplete) = asked ? try storedState(scope) : (record, complete)
        let staleAllowed = servesStale(renewed: latest.renewed)
        if !staleAllowed, let withheld = latest.document, latestComplete {
            if !configuration.staleContent.allows(age: latest.renewed.map { clock.now.duration(since: $0) }) {
                let age = latest.renewed.map { DurationText.describe(clock.now.duration(since: $0)) } ?? "unknown"
                note(.failed, "stale content: revision \(withheld.revision) is \(age) old, past the maximum age; it needs a successful fetch")
                failure.message += "; the cached revision \(withheld.revision) is \(age) old, older than the stale-content policy allows: it is not shown without a successful fetch"
            } else {
                note(.failed, "require authorisation: revision \(withheld.revision) is not shown after a restart without fresh authorisation")
                failure.message += "; the cached revision \(withheld.revision) is not shown before the origin authorises it in this launch (startup: require-authorisation)"
            }
        }
        switch FallbackChain.rest(staleComplete: latest.document != nil && latestComplete, staleAllowed: staleAllowed) {
        case .serveStale:
            guard let document = latest.document else { preconditionFailure("stale without a document") }
            let age = latest.renewed.map { DurationText.describe(clock.now.duration(since: $0)) } ?? "unknown"
            note(.servedStale, "revision \(document.revision) from the cache (\(age) old): \(failure.message)")
            var flow = try flow(document, renewed: latest.renewed, source: .cache, stale: true)
            flow.removed = latest.isRemovedButKept
            flow.fallbackReason = FallbackChain.fallbackReason(forced: forceRefresh, failure: failure.message)
            return (flow, nil)
        case .embeddedOrFail:
            if let embedded = try await embeddedDefault() {
                note(.embedded, "the embedded default: \(failure.message)")
                return (
                    PreparedJourney(
                        journey: configuration.journeyID, revision: 0, bundle: embedded, source: .embedded, renewed: nil, document: nil,
                        stale: false, fallbackReason: FallbackChain.fallbackReason(forced: forceRefresh, failure: failure.message)), nil
                )
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
        if let imported = lifecycle.embeddedBundle { return imported }
        guard let path = configuration.embeddedDefault else { return nil }
        let bundle = try await importEmbedded(path)
        lifecycle.embeddedImported(bundle)
        return bundle
    }

    static func iso(_ date: Date) -> String { date.formatted(.iso8601) }
}
