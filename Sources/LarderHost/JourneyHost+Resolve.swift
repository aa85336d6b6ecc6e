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
}

/// The outcome of one coalesced request to the origin, already applied to the stored state.
enum LiveOutcome: Sendable {
    case authorised(JourneyDocument, renewed: Date, source: ContentSource)
    case denied(status: Int)
    case failed(HostError)
}

extension JourneyHost {
    /// Resolves the flow, walking the fallback chain: fresh cache, a live fetch with a hard
    /// deadline, the stale cache, the embedded default.
    /// - Throws: ``HostError/Code/denied`` when the origin denied the scope (denied content
    ///   is never reused), otherwise the live fetch's error when nothing can be shown.
    public func resolveFlow() async throws(HostError) -> ResolvedFlow {
        try checkUsable()
        return try await resolve()
    }

    /// ``resolveFlow()`` for callers to whom a missing flow is normal: nil when there is
    /// nothing to show (the app then shows its own screen).
    public func resolveFlowIfAvailable() async -> ResolvedFlow? {
        do { return try await resolveFlow() } catch { return nil }
    }

    /// The flow to show: the fallback chain, then the renderer gate.
    func resolve() async throws(HostError) -> ResolvedFlow {
        let flow = try await resolveAuthorised()
        return try await gated(flow)
    }

    /// The fallback chain, before the renderer gate.
    private func resolveAuthorised() async throws(HostError) -> ResolvedFlow {
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
            fetchRunning: origin.liveFetches[scope] != nil)
        {
        case .serveFresh(let refreshInBackground):
            guard let document = record.document, let renewed = record.renewed else { preconditionFailure("fresh without a document") }
            note(.fresh, "revision \(document.revision) is \(DurationText.describe(start.duration(since: renewed))) old: shown from the cache")
            var flow = try flow(document, renewed: renewed, source: .cache, stale: false)
            flow.needsRefresh = refreshInBackground
            return flow
        case .backingOff(let notBefore):
            // Within a backoff nothing asks the origin, so the record read above is current.
            outcome = .failed(backingOff(until: notBefore))
            asked = false
        case .askOrigin:
            outcome = try await Deadline.run(clock: clock, until: start.adding(configuration.fetchDeadline)) {
                await self.live(configuration, generation: generation)
            }
            asked = true
            guard generation == self.generation else { throw HostError(.cancelled, "the configuration changed") }
        }
        let failure: HostError
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
        switch FallbackChain.rest(staleComplete: latest.document != nil && latestComplete) {
        case .serveStale:
            guard let document = latest.document else { preconditionFailure("stale without a document") }
            let age = latest.renewed.map { DurationText.describe(clock.now.duration(since: $0)) } ?? "unknown"
            note(.servedStale, "revision \(document.revision) from the cache (\(age) old): \(failure.message)")
            var flow = try flow(document, renewed: latest.renewed, source: .cache, stale: true)
            flow.removed = latest.isRemovedButKept
            return flow
        case .embeddedOrFail:
            if let embedded = try await embeddedDefault() {
                note(.embedded, "the embedded default: \(failure.message)")
                return ResolvedFlow(
                    journey: configuration.journeyID, revision: 0, bundle: embedded, source: .embedded, renewed: nil, document: nil,
                    stale: false)
            }
            throw failure
        }
    }

    /// Notes that the origin is not asked before `notBefore`; the error to report.
    private func backingOff(until notBefore: Date) -> HostError {
        note(.backingOff, "not asking the origin before \(Self.iso(notBefore))")
        return HostError(.backingOff, "the next attempt may be made at \(Self.iso(notBefore))")
    }

    /// One request to the origin per scope at a time; concurrent callers share its outcome.
    /// - Parameter force: ask even during a backoff (an explicit refresh).
    func live(_ configuration: JourneyConfiguration, generation: Int, force: Bool = false) async -> LiveOutcome {
        let scope = configuration.scope
        if let running = origin.liveFetches[scope] { return await running.value }
        let task = Task { await self.performLiveFetch(configuration, generation: generation, force: force) }
        origin.liveFetches[scope] = task
        let outcome = await task.value
        if origin.liveFetches[scope] == task { origin.liveFetches[scope] = nil }
        return outcome
    }

    private func performLiveFetch(_ configuration: JourneyConfiguration, generation: Int, force: Bool) async -> LiveOutcome {
        let scope = configuration.scope
        var record: ScopeRecord
        do { record = try trustedRecord(scope) } catch { return .failed(error) }
        if !force, let notBefore = record.notBefore, clock.now < notBefore { return .failed(backingOff(until: notBefore)) }
        let client = ConfigurationClient(transport: origin.transport, clock: clock)
        let answer = await client.fetch(
            configuration, etag: record.document == nil ? nil : record.etag, timeout: configuration.fetchDeadline)
        guard generation == self.generation else {
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
                guard generation == self.generation else {
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
                guard generation == self.generation else {
                    return .failed(HostError(.cancelled, "the answer was for a previous configuration"))
                }
                let now = clock.now
                record = FreshnessRenewal.revalidated(record, now: now)
                // Verified in full this launch (``trustedRecord(_:)``) when no earlier one had.
                try await recordVerification(of: document, for: scope)
                try await authorise(record, scope: scope)
                note(.revalidated, "304: revision \(document.revision) is still current")
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
        authorisedThisLaunch.insert(scope)
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
                note(.bundleFetched, "bundle \(bundle.hex.prefix(12)): \(result.bytesDownloaded) bytes in \(result.requests) requests")
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
        authorisedThisLaunch.remove(scope)
        try await retainBundles([], for: scope)
        let why = status == 404 ? "404 confirmed: journey '\(journey)' was removed;" : "\(status):"
        note(.denied, "\(why) content for journey '\(journey)' discarded; the next attempt authorises afresh")
        guard DenialRule.endsPresentation(discardedScope: scope, currentScope: configuration.scope) else { return }
        cancelRefresh()
        await endPresentation()
        stage.releasePrepared()
        setReadiness(.denied(status: status))
    }

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
