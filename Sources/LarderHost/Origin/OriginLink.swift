import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// The link to the origin: the transport, the coalesced live fetches, the bundle fetcher,
/// what trust already decided about the stored document, and the refresh schedule.
///
/// Owned by and isolated to one ``JourneyHost``; it holds no other component's state. The host
/// decides when to ask; the link keeps what asking needs to share.
final class OriginLink {
    let transport: any HTTPTransport
    /// Kept while the origin and the download limits stay the same, so two fetches of one
    /// bundle (an old scope's still running after a configuration change) share one download.
    private var bundleFetcher: (origin: URL, download: BundleFetcher.Configuration, fetcher: BundleFetcher)?
    /// Fetchers replaced by a configuration change: their downloads go on, until disposal.
    private var retiredFetchers: [BundleFetcher] = []
    /// The request to the origin on its way, per scope: concurrent callers share its outcome.
    var liveFetches: [String: Task<LiveOutcome, Never>] = [:]
    /// The last stored document whose signature checked out, and the keys it was checked
    /// against: a launch verifies it once, not at every state read.
    var verifiedDocument: (document: JourneyDocument, keys: [PublicKey])?
    /// The last stored document the trusted keys refused, so the timeline says so once.
    var refusedStoredDocument: JourneyDocument?
    /// When the origin is next asked on the host's own initiative.
    let schedule = RefreshSchedule()

    init(transport: any HTTPTransport) { self.transport = transport }

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
}
