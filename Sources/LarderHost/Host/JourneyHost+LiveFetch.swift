import Foundation
import LarderCache
import LarderFetch
import LarderFormat
import LarderTransport

/// The outcome of one coalesced request to the origin, already applied to the stored state.
enum LiveOutcome: Sendable {
    case authorised(JourneyDocument, renewed: Date, source: ContentSource)
    case denied(status: Int)
    case failed(HostError)
}

/// The live link of the fallback chain: one coalesced request to the origin per scope, its
/// answer applied to the stored state (``FreshnessRenewal``, ``DenialRule``, ``Backoff``,
/// trust), and the bundle it names brought into the cache.
extension JourneyHost {
    /// One request to the origin per scope at a time; concurrent callers share its outcome.
    /// - Parameter force: ask even during a backoff (an explicit refresh).
    func live(_ configuration: JourneyConfiguration, generation: Int, force: Bool = false) async -> LiveOutcome {
        let scope = configuration.scope
        if let running = origin.liveFetch(for: scope) { return await running.value }
        let task = Task { await self.performLiveFetch(configuration, generation: generation, force: force) }
        origin.share(task, for: scope)
        let outcome = await task.value
        origin.finished(task, for: scope)
        return outcome
    }

    private func performLiveFetch(_ configuration: JourneyConfiguration, generation: Int, force: Bool) async -> LiveOutcome {
        let scope = configuration.scope
        var record: ScopeRecord
        do { record = try trustedRecord(scope) } catch { return .failed(error) }
        // A success after a failure: the connection returned, queued captures drain.
        let answeredAfterFailure = record.failures > 0
        if !force, let notBefore = record.notBefore, clock.now < notBefore { return .failed(backingOff(until: notBefore)) }
        let client = ConfigurationClient(transport: origin.transport, clock: clock)
        let answer = await client.fetch(
            configuration, etag: record.document == nil ? nil : record.etag, timeout: configuration.fetchDeadline)
        guard lifecycle.isCurrent(generation) else {
            return .failed(HostError(.cancelled, "the answer was for a previous configuration"))
        }
        do {
            switch answer {
            case .fetched(let document, let etag):
                if let rejection = try rejection(of: document, scope: scope) {
                    return try await fail(record, scope: scope, rejection, retryAfter: nil)
                }
                if let error = await fetchBundle(try assignedBundle(document), configuration: configuration) {
                    return try await fail(record, scope: scope, error, retryAfter: nil)
                }
                guard lifecycle.isCurrent(generation) else {
                    return .failed(HostError(.cancelled, "the answer was for a previous configuration"))
                }
                let now = clock.now
                let fitting = try fittingRevision(besides: document, previous: record)
                record = ScopeRecord(document: document, etag: etag, renewed: now)
                try await accept(document, for: scope)
                record.fitting = fitting
                try await authorise(record, scope: scope)
                note(.fetched, "200: revision \(document.revision), bundle \(try assignedBundle(document).hex.prefix(12))"
                    + (document.rollout.map { " (rollout of \(document.bundle.hex.prefix(12)) to \($0.percent)%)" } ?? ""))
                drainCaptures(.originAnswered(afterFailure: answeredAfterFailure))
                return .authorised(document, renewed: now, source: .network)
            case .notModified:
                guard let document = record.document else {
                    return try await fail(record, scope: scope, HostError(.unavailable, "a 304 without a cached document"), retryAfter: nil)
                }
                // Checked again now: it may have expired while the request was on its way.
                if let rejection = try revalidationRejection(of: document, scope: scope) {
                    return try await fail(record, scope: scope, rejection, retryAfter: nil)
                }
                let bundle = try assignedBundle(document)
                if try !isComplete(bundle), let error = await fetchBundle(bundle, configuration: configuration) {
                    return try await fail(record, scope: scope, error, retryAfter: nil)
                }
                guard lifecycle.isCurrent(generation) else {
                    return .failed(HostError(.cancelled, "the answer was for a previous configuration"))
                }
                let now = clock.now
                record = FreshnessRenewal.revalidated(record, now: now)
                // Verified in full this launch (``trustedRecord(_:)``) when no earlier one had.
                try await recordVerification(of: document, for: scope)
                try await authorise(record, scope: scope)
                note(.revalidated, "304: revision \(document.revision) is still current")
                drainCaptures(.originAnswered(afterFailure: answeredAfterFailure))
                return .authorised(document, renewed: now, source: .revalidated)
            case .denied(let status):
                return try await perform(DenialRule.denied(status: status), record, configuration)
            case .notFound:
                record.notFound += 1
                let action = DenialRule.notFound(
                    consecutive: record.notFound, policy: configuration.removedJourney, storedRevision: record.document?.revision,
                    alreadyKept: record.isRemovedButKept)
                return try await perform(action, record, configuration)
            case .failed(let error, let retryAfter):
                return try await fail(record, scope: scope, error, retryAfter: retryAfter)
            }
        } catch {
            return .failed(error)
        }
    }

    /// Performs ``DenialRule``'s decision on an answer for `configuration`'s scope.
    private func perform(_ action: DenialRule.Action, _ record: ScopeRecord, _ configuration: JourneyConfiguration) async throws(HostError) -> LiveOutcome {
        let scope = configuration.scope
        switch action {
        case .discard(let status):
            try await discard(scope: scope, status: status, journey: configuration.journeyID)
            return .denied(status: status)
        case .keepServing(let revision, let firstTime):
            var record = record
            if firstTime {
                record.deniedStatus = 404
                record.deniedAt = clock.now
                record.keptAfterRemoval = true
                note(.removed, "404 confirmed: journey '\(configuration.journeyID)' is gone; revision \(revision) stays in service (keep)")
            }
            return try await fail(record, scope: scope, HostError(.unavailable, "\(configuration.documentURL.absoluteString): the journey was removed from the origin; revision \(revision) is kept in service", status: 404), retryAfter: nil)
        case .awaitConfirmation:
            note(.notFound, "404: the journey is unknown; a second 404 will confirm it")
            return try await fail(record, scope: scope, HostError(.unavailable, "\(configuration.documentURL.absoluteString): the origin does not know journey '\(configuration.journeyID)'", status: 404), retryAfter: nil)
        }
    }

    private func fail(_ record: ScopeRecord, scope: String, _ error: HostError, retryAfter: Duration?) async throws(HostError) -> LiveOutcome {
        var record = record
        record.failures += 1
        let wait = Backoff.delay(failures: record.failures, retryAfter: retryAfter)
        record.notBefore = clock.now.adding(wait)
        if error.status != 404 { record.notFound = 0 }
        try await saveRecord(record, for: scope)
        note(.failed, "\(error); next attempt after \(DurationText.describe(wait))" + (retryAfter == nil ? "" : " (Retry-After)"))
        return .failed(error)
    }

    private func authorise(_ record: ScopeRecord, scope: String) async throws(HostError) {
        try await saveRecord(record, for: scope)
        lifecycle.authorised(scope)
        guard let document = record.document else { return }
        var bundles: Set<Digest> = [try assignedBundle(document)]
        // An older revision the renderer can load stays beside one it cannot.
        if let fitting = record.fitting { bundles.insert(try assignedBundle(fitting)) }
        try await retainBundles(bundles, for: scope, journey: document.journey)
    }

    /// Brings a bundle into the cache; nil on success.
    private func fetchBundle(_ bundle: Digest, configuration: JourneyConfiguration) async -> HostError? {
        do {
            let meter = observation.progressMeter
            let result = try await fetcher(for: configuration).fetch(bundle) { fraction in meter.report(fraction) }
            meter.report(1)
            if result.source != .cache {
                note(.bundleFetched, "bundle \(bundle.hex.prefix(12)): \(result.timelineDetail)")
            }
            return nil
        } catch {
            return HostError(.unavailable, "cannot fetch the bundle", digest: bundle, transportError: error)
        }
    }

    /// The fetcher for the configuration's origin (``OriginLink/fetcher(for:cache:)``). Its
    /// downloads are not held to ``JourneyConfiguration/fetchDeadline``: one that outlives it
    /// goes on in the background (within its own limits, ``JourneyConfiguration/download``)
    /// until the host is disposed, so the next presentation, or the next launch, finds the
    /// bundle or resumes it.
    private func fetcher(for configuration: JourneyConfiguration) -> BundleFetcher {
        origin.fetcher(for: configuration, cache: cache)
    }

    /// A definitive denial: forget the scope's document and validator, let the cache drop its
    /// bundles, end any presentation of it and discard prepared content.
    func discard(scope: String, status: Int, journey: String) async throws(HostError) {
        var record = ScopeRecord()
        record.deniedStatus = status
        record.deniedAt = clock.now
        try await saveRecord(record, for: scope)
        lifecycle.deauthorised(scope)
        try await retainBundles([], for: scope)
        let why = status == 404 ? "404 confirmed: journey '\(journey)' was removed;" : "\(status):"
        note(.denied, "\(why) content for journey '\(journey)' discarded; the next attempt authorises afresh")
        guard DenialRule.endsPresentation(discardedScope: scope, currentScope: configuration.scope) else { return }
        await schedule { $0.cancelled() }
        await endSession(.stopped(.failure))
        await perform(stage.discarded())
        setReadiness(.denied(status: status))
    }
}
