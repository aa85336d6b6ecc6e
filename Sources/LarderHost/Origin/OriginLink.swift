import Foundation
import LarderCache
import LarderFetch
import LarderFormat
import LarderTransport

/// The link to the origin: the transport, the coalesced live fetches, the bundle fetcher,
/// what trust already decided about the stored document, and the refresh schedule with its
/// task.
///
/// Owned by and isolated to one ``JourneyHost``; it holds no other component's state, and
/// changes only through its own methods. The host decides when to ask; the link keeps what
/// asking needs to share.
final class OriginLink {
    let transport: any HTTPTransport
    /// Kept while the origin and the download limits stay the same, so two fetches of one
    /// bundle (an old scope's still running after a configuration change) share one download.
    private var bundleFetcher: (origin: URL, download: BundleFetcher.Configuration, fetcher: BundleFetcher)?
    /// Fetchers replaced by a configuration change: their downloads go on, until disposal.
    private var retiredFetchers: [BundleFetcher] = []
    /// The request to the origin on its way, per scope: concurrent callers share its outcome.
    private var liveFetches: [String: Task<LiveOutcome, Never>] = [:]
    /// The last stored document whose signature checked out, and the keys it was checked
    /// against: a launch verifies it once, not at every state read.
    private var verifiedDocument: (document: JourneyDocument, keys: [PublicKey])?
    /// The last stored document the trusted keys refused, so the timeline says so once.
    private var refusedStoredDocument: JourneyDocument?
    /// When the origin is next asked on the host's own initiative.
    private(set) var schedule = RefreshSchedule()
    /// The refresh the schedule keeps: a timer, or a refresh under way.
    private var refreshTask: Task<Void, Never>?

    init(transport: any HTTPTransport) { self.transport = transport }

    deinit { refreshTask?.cancel() }

    // MARK: Bundle fetchers

    /// The fetcher for the configuration's origin and download limits: the kept one while
    /// they stay the same, else a new one (the old one retired).
    func fetcher(for configuration: JourneyConfiguration, cache: LarderCache) -> BundleFetcher {
        if let kept = bundleFetcher, kept.origin == configuration.requestOrigin, kept.download == configuration.download { return kept.fetcher }
        retireFetcher()
        let fetcher = BundleFetcher(cache: cache, origin: configuration.requestOrigin, transport: transport, configuration: configuration.download)
        bundleFetcher = (configuration.requestOrigin, configuration.download, fetcher)
        return fetcher
    }

    /// Keeps the bundle fetcher's downloads running (cancelled on disposal) and lets the next
    /// fetch make a fetcher of the current configuration.
    func retireFetcher() {
        guard let kept = bundleFetcher else { return }
        bundleFetcher = nil
        retiredFetchers.append(kept.fetcher)
    }

    /// The current fetcher, if any.
    var currentFetcher: BundleFetcher? { bundleFetcher?.fetcher }

    /// The fetchers a configuration change retired.
    var retired: [BundleFetcher] { retiredFetchers }

    // MARK: Live fetches

    /// The request on its way for `scope`, if any.
    func liveFetch(for scope: String) -> Task<LiveOutcome, Never>? { liveFetches[scope] }

    /// `task` is the request on its way for `scope`: later callers share it.
    func share(_ task: Task<LiveOutcome, Never>, for scope: String) { liveFetches[scope] = task }

    /// `task` for `scope` finished: forgotten, unless another took its place meanwhile.
    func finished(_ task: Task<LiveOutcome, Never>, for scope: String) {
        if liveFetches[scope] == task { liveFetches[scope] = nil }
    }

    /// Cancels and forgets the request on its way for `scope` (a logout).
    func cancelLiveFetch(for scope: String) {
        liveFetches.removeValue(forKey: scope)?.cancel()
    }

    /// Cancels every request on its way (disposal); they stay shared until they end.
    func cancelLiveFetches() {
        for task in liveFetches.values { task.cancel() }
    }

    // MARK: Trust's memory

    /// Whether `document` is the stored document last verified against `keys`.
    func isVerified(_ document: JourneyDocument, keys: [PublicKey]) -> Bool {
        verifiedDocument.map { $0.keys == keys && $0.document == document } ?? false
    }

    /// Remembers `document` as verified against `keys`.
    func rememberVerified(_ document: JourneyDocument, keys: [PublicKey]) { verifiedDocument = (document, keys) }

    /// Forgets what trust decided about stored documents (a logout): the next use verifies
    /// again.
    func forgetTrust() {
        verifiedDocument = nil
        refusedStoredDocument = nil
    }

    /// Remembers that the trusted keys refused the stored `document`.
    /// - Returns: true the first time in a row for this document (the timeline says so once).
    func rememberRefused(_ document: JourneyDocument) -> Bool {
        guard refusedStoredDocument != document else { return false }
        refusedStoredDocument = document
        return true
    }

    // MARK: Refresh schedule

    /// Applies an event to the refresh schedule (only its events can change it) and returns
    /// what to do; ``JourneyHost`` performs it.
    func schedule(_ event: (inout RefreshSchedule) -> RefreshSchedule.Action) -> RefreshSchedule.Action {
        event(&schedule)
    }

    /// Keeps `task` as the refresh task, cancelling the one kept before.
    func keepRefreshTask(_ task: Task<Void, Never>) {
        refreshTask?.cancel()
        refreshTask = task
    }

    /// Cancels the refresh task kept, if any.
    func cancelRefreshTask() {
        refreshTask?.cancel()
        refreshTask = nil
    }

    /// Lets go of the refresh task kept, without cancelling it.
    func releaseRefreshTask() { refreshTask = nil }
}
