import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// Fetches bundles from a static origin (see `larder publish`) into a `LarderCache`.
///
/// The manifest is fetched and checked against the bundle digest first; then only the objects
/// the cache lacks are downloaded (a few at a time, gzip-encoded where the origin has a
/// compressed copy) and each is verified, or the whole archive, resumable at any byte. The
/// objects only when the cache saves a real share: the raw bytes it holds of the bundle, plus
/// those of missing objects a patch will make, at least 5% of the bundle's; less than that
/// (nothing cached included), the archive moves fewer bytes in one request. Nothing is
/// installed until everything verified.
///
/// Every fetch is bounded: it ends by ``Configuration/deadline`` whatever the origin does; no
/// body may be larger than the manifest, the archive or the document kind implies; a full disk
/// is its own error and leaves no partial file. One download per bundle per cache: concurrent
/// fetches in this process share one; a fetch in another process sharing the cache waits for
/// it (until its deadline) and uses what it installed, or takes over its partial files when it
/// died. Partial files are kept between attempts (and launches), so an interrupted download
/// resumes where it stopped.
public actor BundleFetcher {
    public struct Configuration: Sendable, Equatable {
        /// Object downloads at once.
        public var parallelism = 8
        /// Tries per request that bring nothing new (a connection that drops or stalls); a try
        /// that brings bytes does not count.
        public var attempts = 3
        /// How long one request may take.
        public var requestTimeout: Duration = .seconds(60)
        /// How long the whole fetch may take, waiting for another process included.
        public var deadline: Duration = .seconds(600)
        /// Slower than this, a request gives up (and the next try resumes where it stopped).
        public var minimumSpeed: HTTPRequest.MinimumSpeed? = .init(bytesPerSecond: 1024, window: .seconds(15))
        /// Whether an update of a bundle asks the origin for its patch index and makes the
        /// objects it can from patches against objects the cache holds (Docs/Patches.md). Off
        /// by default: an origin without patches then costs no extra request; `JourneyHost`
        /// and `larder cache fetch` turn it on.
        public var usesPatches = false
        /// The bounds every patch is applied within.
        public var patchLimits = PatchLimits()
        public init() {}

        /// The defaults with ``usesPatches`` on: what a host fetching updates of its journeys uses.
        public static var patching: Configuration {
            var configuration = Configuration()
            configuration.usesPatches = true
            return configuration
        }
    }

    private let cache: LarderCache
    private let origin: URL
    private let transport: any HTTPTransport
    private let configuration: Configuration
    private var running: [Digest: Task<FetchResult, any Error>] = [:]

    /// - Parameters:
    ///   - origin: the base URL the origin layout is served under.
    ///   - transport: how requests are sent; `platformTransport()` unless a test swaps it.
    ///   - cache: the cache bundles are installed into; what it holds is never fetched again.
    ///   - configuration: parallelism, attempts and the time limits of requests and of a whole
    ///     fetch.
    public init(
        cache: LarderCache, origin: URL, transport: any HTTPTransport = platformTransport(), configuration: Configuration = .init()
    ) {
        self.cache = cache
        self.origin = origin
        self.transport = transport
        self.configuration = configuration
    }

    /// Brings a bundle into the cache.
    /// - Parameters:
    ///   - progress: fractions from 0 to 1 as bytes arrive (apps show it as preload
    ///     progress); called from a background thread.
    ///   - bundle: the bundle digest, as a journey document or `larder pack` names it.
    /// - Throws: `TransportError`; a server that sends wrong bytes gets nothing into the cache.
    public func fetch(_ bundle: Digest, progress: (@Sendable (Double) -> Void)? = nil) async throws(TransportError) -> FetchResult {
        guard let progress else { return try await fetch(bundle, reporting: nil) }
        return try await fetch(bundle, reporting: { @Sendable (reached: FetchProgress) in progress(reached.fraction) })
    }

    /// Brings a bundle into the cache, reporting the bytes received so far and in all.
    /// - Parameters:
    ///   - bundle: the bundle digest, as a journey document or `larder pack` names it.
    ///   - progress: called from a background thread as bytes arrive, and once more when the
    ///     bundle is in the cache.
    /// - Throws: `TransportError`; a server that sends wrong bytes gets nothing into the cache.
    public func fetch(_ bundle: Digest, reporting progress: (@Sendable (FetchProgress) -> Void)?) async throws(TransportError) -> FetchResult {
        if let task = running[bundle] { return try await Self.value(of: task) }
        let work = FetchWork(
            cache: cache, origin: origin, transport: transport, configuration: configuration, progress: progress,
            deadline: FetchDeadline(after: configuration.deadline))
        let task = Task { () async throws -> FetchResult in try await work.run(bundle) }
        running[bundle] = task
        defer { running[bundle] = nil }
        return try await Self.value(of: task)
    }

    /// Stops every fetch in progress (they throw `TransportError/Code/cancelled`); their
    /// partial files stay for a later fetch to resume.
    public func cancelAll() {
        for task in running.values { task.cancel() }
    }

    private static func value(of task: Task<FetchResult, any Error>) async throws(TransportError) -> FetchResult {
        do { return try await task.value } catch let error as TransportError { throw error } catch {
            throw TransportError(.cancelled, "the fetch was cancelled")
        }
    }
}
