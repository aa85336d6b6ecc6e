import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// Prepares, presents and refreshes one journey for one presentation surface.
///
/// `prepare()` fetches the configuration (with its ETag) and starts the renderer in parallel,
/// then keeps one hidden renderer ready within the freshness window; `present()` shows it at
/// once, offline too. Every rule of freshness, denial, backoff and configuration change is
/// described on the method it applies to; time, network and renderer are injected.
public actor JourneyHost {
    /// Prepared content: the authorised revision, the lease that keeps its bundle, and whether
    /// the renderer currently holds it.
    struct Prepared {
        var journey: PreparedJourney
        /// The authorised configuration document; nil for stale or embedded content, which is
        /// never fresh.
        var document: JourneyDocument?
        var content: RenderContent
        var loaded: Bool

        /// Ready to show: loaded, or presented directly (nothing to load ahead).
        var isReady: Bool { loaded || !journey.preloaded }
    }

    let cache: LarderCache
    let renderer: any JourneyRenderer
    let transport: any HTTPTransport
    let clock: any HostClock
    let store: HostStore
    let capturePath: String
    /// Opened on first use: preparing and presenting need no capture storage.
    var openedCaptureQueue: CaptureQueue?
    /// The last of the captures waiting, in order, for a write lock another connection holds
    /// on the capture queue; nil when none waits. Later captures queue behind it.
    var captureBacklog: Task<Void, Never>?
    /// How many captures wait in ``captureBacklog``.
    var captureBacklogCount = 0
    let captureSink: (any CaptureSink)?
    /// Kept while the origin and the download limits stay the same, so two fetches of one
    /// bundle (an old scope's still running after a configuration change) share one download.
    var bundleFetcher: (origin: URL, download: BundleFetcher.Configuration, fetcher: BundleFetcher)?
    /// Fetchers replaced by a configuration change: their downloads go on, until disposal.
    var retiredFetchers: [BundleFetcher] = []

    /// The current configuration.
    public internal(set) var configuration: JourneyConfiguration
    /// Bumped by every configuration change: late answers for an older scope are dropped.
    var generation = 0
    /// Scopes authorised by the origin since this host was created: after a restart a new
    /// presentation needs fresh authorisation.
    var authorisedThisLaunch: Set<String> = []
    var prepared: Prepared?
    /// A newer revision fetched while a presentation was open, shown after dismissal.
    var staged: Prepared?
    /// What is on screen, and the content it shows (kept apart from `prepared`).
    var presentation: PresentationState = .hidden {
        didSet {
            guard presentation != oldValue else { return }
            presentationObservers.yield(presentation)
        }
    }
    let presentationObservers = Broadcast<PresentationState>()
    /// Download progress of the latest preparation or warm-up.
    let progressMeter = ProgressMeter()
    var presented: Prepared?
    /// The context the open presentation adds to its captures (``present(context:)``).
    var sessionContext: [String: String] = [:]
    var preparation: (generation: Int, task: Task<PreparedJourney, any Error>)?
    var liveFetches: [String: Task<LiveOutcome, Never>] = [:]
    var refreshTask: Task<Void, Never>?
    var refreshDue: Date?
    var foreground = true
    var rendererStart: Task<Void, any Error>?
    var embeddedBundle: Digest?
    /// The last stored document whose signature checked out, and the keys it was checked
    /// against: a launch verifies it once, not at every state read.
    var verifiedDocument: (document: JourneyDocument, keys: [PublicKey])?
    /// The last stored document the trusted keys refused, so the timeline says so once.
    var refusedStoredDocument: JourneyDocument?
    /// The renderer gate's verdict per bundle: nil when it fits, else why not.
    var gateVerdicts: [Digest: String?] = [:]
    var disposed = false
    var readinessValue: Readiness = .idle
    let readinessObservers = Broadcast<Readiness>()
    var log = Timeline()
    var bridgeTask: Task<Void, Never>?
    var bridgeMessages: AsyncStream<BridgeMessage>?
    let bridge: RendererBridge
    let appMessages: AsyncStream<BridgeMessage>.Continuation

    /// Messages from the content for the app: dismiss, navigate, open link, purchase,
    /// restore and custom messages (captures go to the capture queue instead).
    public nonisolated let messages: AsyncStream<BridgeMessage>

    /// - Parameters:
    ///   - storage: a folder for the host's own state (backoff, the last authorised
    ///     configuration, the capture queue); created when missing. Partial downloads live in
    ///     the cache, shared with every process that uses it.
    ///   - captureSink: where captured events go; nil posts them to the capture endpoint.
    /// - Throws: ``HostError/Code/storage`` when the state cannot be opened.
    public init(
        configuration: JourneyConfiguration, cache: LarderCache, renderer: any JourneyRenderer, storage: String,
        transport: any HTTPTransport = platformTransport(), clock: any HostClock = SystemClock(),
        captureSink: (any CaptureSink)? = nil
    ) throws(HostError) {
        do { try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true) } catch {
            throw HostError(
                storage: HostStorageError(.folder, "cannot create the folder: \(error)", path: storage), "cannot create the host state folder")
        }
        self.configuration = configuration
        self.cache = cache
        self.renderer = renderer
        self.transport = transport
        self.clock = clock
        self.store = try HostStore(path: storage + "/host.sqlite")
        self.capturePath = storage + "/capture.sqlite"
        self.captureSink = captureSink
        (messages, appMessages) = AsyncStream.makeStream(of: BridgeMessage.self)
        let (incoming, continuation) = AsyncStream.makeStream(of: BridgeMessage.self)
        bridge = RendererBridge(clock: clock) { message in continuation.yield(message) }
        bridgeMessages = incoming
    }

    /// Starts passing renderer messages on, in order (once).
    func listenToBridge() {
        guard bridgeTask == nil, let incoming = bridgeMessages else { return }
        bridgeMessages = nil
        bridgeTask = Task { [weak self] in
            for await message in incoming {
                guard let self else { return }
                await self.receive(message)
            }
        }
    }

    deinit {
        bridgeTask?.cancel()
        refreshTask?.cancel()
        preparation?.task.cancel()
    }

    // MARK: Observation

    /// How ready the host is to present.
    public var readiness: Readiness { readinessValue }

    /// Whether the journey is on screen.
    public var presentationState: PresentationState { presentation }

    /// The current readiness, then every change, until the host is disposed.
    public func readinessUpdates() -> AsyncStream<Readiness> {
        readinessObservers.subscribe(current: readinessValue)
    }

    /// The current presentation state, then every change, until the host is disposed.
    public func presentationUpdates() -> AsyncStream<PresentationState> {
        presentationObservers.subscribe(current: presentation)
    }

    /// Progress (0…1) of the latest ``prepare()`` or ``prefetch(journeys:)``: its current
    /// value, then every rise, until the host is disposed. Each operation starts at 0, rises
    /// as its bundles download (a warm-up gives each journey an equal share) and ends at 1 when
    /// it succeeds; content already cached goes from 0 to 1 at once. For a progress bar.
    public func progressUpdates() -> AsyncStream<Double> { progressMeter.subscribe() }

    /// What the host did and why, oldest first: its own last 500 entries, and the last 100
    /// that messages from the content caused (captures), so content cannot push the host's out.
    /// Messages the bridge refused are counted (``bridgeCounts()``), not listed.
    public func timeline() -> [TimelineEntry] { log.entries }

    /// What the content posted over the renderer bridge since the host was created: messages
    /// delivered, and those refused as too large, past the rate limit or malformed
    /// (``BridgeLimits``).
    public func bridgeCounts() -> BridgeCounts { bridge.counts }

    func setReadiness(_ value: Readiness) {
        guard value != readinessValue else { return }
        readinessValue = value
        readinessObservers.yield(value)
    }

    /// Adds one of the host's own entries to the timeline.
    func note(_ kind: TimelineEntry.Kind, _ detail: String) {
        log.append(TimelineEntry(time: clock.now, kind: kind, detail: detail), from: .host)
    }

    /// Adds an entry a message from the content caused (its own bound: see ``timeline()``).
    func noteContent(_ kind: TimelineEntry.Kind, _ detail: String) {
        log.append(TimelineEntry(time: clock.now, kind: kind, detail: detail), from: .content)
    }

    // MARK: Configuration and disposal

    /// Cancels preparation and refresh work, cuts the renderer bridge, stops the renderer and
    /// makes the host unavailable. Queued captures stay queued for another host.
    public func dispose() async {
        guard !disposed else { return }
        disposed = true
        generation += 1
        preparation?.task.cancel()
        preparation = nil
        cancelRefresh()
        for task in liveFetches.values { task.cancel() }
        if let fetcher = bundleFetcher?.fetcher { await fetcher.cancelAll() }
        bridgeTask?.cancel()
        endBridgePeriod()
        presentation = .hidden
        presented?.content.lease.release()
        presented = nil
        releasePrepared()
        for fetcher in retiredFetchers { await fetcher.cancelAll() }
        rendererStart?.cancel()
        await renderer.stop()
        note(.disposed, "host disposed")
        setReadiness(.disposed)
        readinessObservers.finish()
        presentationObservers.finish()
        progressMeter.close()
        appMessages.finish()
    }

    func releasePrepared() {
        let old = [prepared, staged]
        prepared = nil
        staged = nil
        for case let retired? in old { retire(retired) }
    }

    /// The durable capture queue, opened on first use.
    func captureQueue() throws(HostError) -> CaptureQueue {
        if let openedCaptureQueue { return openedCaptureQueue }
        let queue = try CaptureQueue(path: capturePath)
        openedCaptureQueue = queue
        return queue
    }

    func checkUsable() throws(HostError) {
        if disposed { throw HostError(.disposed, "the host was disposed") }
    }
}
