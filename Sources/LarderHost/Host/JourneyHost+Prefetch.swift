import Foundation
import LarderFormat

/// What a warm-up did for one journey.
public struct PrefetchResult: Sendable {
    public var journey: String
    /// The revision ready in the cache: authorised now, fresh from an earlier request of this
    /// host, or (with ``error``) stale from the cache because the origin could not be asked.
    /// Nil when nothing of the journey is cached.
    public var flow: PreparedJourney?
    /// Why the origin did not authorise the journey now (unavailable, backing off, denied);
    /// nil when it did, or when the cached revision is still fresh.
    public var error: HostError?
}

extension JourneyHost {
    /// Warms several journeys up in one call (on a profile update, say, with one
    /// progress): for each journey of this host's key, identity and origin, the
    /// configuration is fetched or revalidated and its bundle brought into the cache, so a
    /// first launch on a slow network prepares onboarding and paywall together instead of
    /// falling back to the embedded default.
    ///
    /// Journeys are warmed one after another, in the order given (duplicates once), so a
    /// bundle downloads only what the ones before it did not bring (a font two flows share
    /// travels once); each follows the rules of a preparation: backoff and `Retry-After` per
    /// journey (never forced), a 304 answering the stored validator, denials discarding that
    /// journey's content. A journey still fresh from this host's own earlier request is not
    /// asked again. Nothing is loaded into the renderer: ``prepare(forceRefresh:)`` then finds the current
    /// journey fresh in the cache. ``progressUpdates()`` reports one combined progress, 0…1,
    /// each journey an equal share.
    /// - Parameter journeys: journey ids.
    /// - Returns: one result per journey, in order.
    /// - Throws: ``HostError/Code/disposed``; ``HostError/Code/cancelled`` when the
    ///   configuration changed meanwhile (results would be for another scope).
    public func prefetch(journeys: [String]) async throws(HostError) -> [PrefetchResult] {
        try checkUsable()
        var seen = Set<String>()
        let ids = journeys.filter { seen.insert($0).inserted }
        let base = configuration
        let generation = lifecycle.generation
        observation.progressMeter.start()
        var results: [PrefetchResult] = []
        for (index, id) in ids.enumerated() {
            let share = 1 / Double(ids.count)
            observation.progressMeter.step((Double(index) * share)...(Double(index + 1) * share))
            var configuration = base
            configuration.journeyID = id
            results.append(await warm(configuration, generation: generation))
            guard isCurrent(generation) else { throw HostError(.cancelled, "the configuration changed during the warm-up") }
        }
        observation.progressMeter.finish()
        return results
    }

    private func warm(_ configuration: JourneyConfiguration, generation: Int) async -> PrefetchResult {
        let scope = configuration.scope
        let id = configuration.journeyID
        do {
            let (record, complete) = try storedState(scope)
            if lifecycle.isAuthorised(scope), complete, !record.isRemovedButKept, let cached = try cachedFlow(of: record),
                freshness(of: cached, in: scope) == .fresh
            {
                note(.fresh, "warm-up: journey '\(id)' revision \(cached.revision) is fresh in the cache")
                observation.progressMeter.report(1)
                return PrefetchResult(journey: id, flow: cached)
            }
            switch await live(configuration, generation: generation) {
            case .authorised(let document, let renewed, let source):
                observation.progressMeter.report(1)
                return PrefetchResult(journey: id, flow: try self.flow(document, renewed: renewed, source: source, stale: false))
            case .denied(let status):
                return PrefetchResult(journey: id, error: HostError(.denied, "the origin denied journey '\(id)'", status: status))
            case .failed(let error):
                let (latest, latestComplete) = try storedState(scope)
                guard let document = latest.document, latestComplete else { return PrefetchResult(journey: id, error: error) }
                var flow = try self.flow(document, renewed: latest.renewed, source: .cache, stale: true)
                flow.removed = latest.isRemovedButKept
                return PrefetchResult(journey: id, flow: flow, error: error)
            }
        } catch {
            return PrefetchResult(journey: id, error: error)
        }
    }
}
