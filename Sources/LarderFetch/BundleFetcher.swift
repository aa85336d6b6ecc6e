import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// How a bundle reached the cache.
public struct FetchResult: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        /// It was already there, or another process sharing the cache brought it in while
        /// this fetch waited: nothing was downloaded.
        case cache
        /// Only the objects the cache lacked were downloaded.
        case objects
        /// The whole archive was downloaded (nothing of it was cached).
        case archive
    }

    public var bundle: Digest
    public var source: Source
    /// Body bytes received over the network (compressed, where they came compressed).
    public var bytesDownloaded: Int64
    /// HTTP requests sent, retries included.
    public var requests: Int
    /// ``bytesDownloaded`` by what the bytes were.
    public var bytesByKind = FetchBytes()
    /// Objects made from patches (Docs/Patches.md).
    public var patchesApplied = 0
    /// Times a patch could not be used and the object was fetched whole instead: a patch
    /// missing, damaged, of a base gone from the cache, making other bytes, past a limit; or
    /// an index that could not be read (once).
    public var patchFallbacks = 0

    public init(
        bundle: Digest, source: Source, bytesDownloaded: Int64, requests: Int, bytesByKind: FetchBytes = FetchBytes(), patchesApplied: Int = 0,
        patchFallbacks: Int = 0
    ) {
        self.bundle = bundle
        self.source = source
        self.bytesDownloaded = bytesDownloaded
        self.requests = requests
        self.bytesByKind = bytesByKind
        self.patchesApplied = patchesApplied
        self.patchFallbacks = patchFallbacks
    }
}

/// The bytes a fetch received, by kind; they add up to ``FetchResult/bytesDownloaded``.
public struct FetchBytes: Sendable, Equatable {
    /// The manifest.
    public var manifest: Int64 = 0
    /// The whole archive, when nothing of the bundle was cached.
    public var archive: Int64 = 0
    /// Objects fetched whole (fallbacks included).
    public var objects: Int64 = 0
    /// The patch index and the patches, those that failed included.
    public var patches: Int64 = 0

    public init(manifest: Int64 = 0, archive: Int64 = 0, objects: Int64 = 0, patches: Int64 = 0) {
        self.manifest = manifest
        self.archive = archive
        self.objects = objects
        self.patches = patches
    }
}

/// Fetches bundles from a static origin (see `larder publish`) into a `LarderCache`.
///
/// The manifest is fetched and checked against the bundle digest first; then only the objects
/// the cache lacks are downloaded (a few at a time, gzip-encoded where the origin has a
/// compressed copy) and each is verified, or, when nothing of the bundle is cached, the whole
/// archive, resumable at any byte. Nothing is installed until everything verified.
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
