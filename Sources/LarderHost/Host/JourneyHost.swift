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
///
/// The host orchestrates only. Its state lives in components it owns, plain types isolated to
/// it (no hop off the actor), none of which reads another's: ``HostObservation``,
/// ``PresentationStage``, ``OriginLink`` (with its ``RefreshSchedule``), ``RendererDriver``
/// and ``CaptureLane``. Each rule is one pure decision it performs (``FallbackChain``,
/// ``FreshnessPolicy``, ``FreshnessRenewal``, ``Backoff``, ``DenialRule``, ``StagingRule``,
/// ``DismissalRule``, ``PresentationOutcomeRule``, ``PresentationMode``, ``RendererGate``,
/// ``RendererTermination``, ``DocumentTrust``, ``ConfigurationChange``); README.md's host
/// section maps each rule to its file and tests. Hosts sharing a ``PresentationCoordinator``
/// (by default, all of the process) present one at a time.
public actor JourneyHost {
    let cache: LarderCache
    let clock: any HostClock
    let store: HostStore

    /// The current configuration.
    public internal(set) var configuration: JourneyConfiguration
    /// Bumped by every configuration change: late answers for an older scope are dropped.
    var generation = 0
    /// Scopes authorised by the origin since this host was created: after a restart a new
    /// presentation needs fresh authorisation.
    var authorisedThisLaunch: Set<String> = []
    /// Set by ``dispose()``: the host is unavailable from then on.
    var disposed = false
    /// The preparation under way, shared by concurrent ``prepare(forceRefresh:)`` calls of its
    /// generation (a forced one only by forced calls).
    var preparation: (generation: Int, task: Task<PreparedJourney, any Error>, forced: Bool)?
    /// The embedded default's bundle, once imported.
    var embeddedBundle: Digest?

    /// Readiness, presentation and progress streams, and the timeline.
    let observation: HostObservation
    /// What is prepared, staged and on screen.
    let stage = PresentationStage()
    /// The link to the origin: live fetches, bundle fetchers, trust's memory, refreshes.
    let origin: OriginLink
    /// The renderer, its start, the bridge and the gate's verdicts.
    let driver: RendererDriver
    /// The capture queue, its backlog and the sink.
    let captures: CaptureLane
    /// The hosts this one presents one at a time with (``PresentationCoordinator``).
    let coordinator: PresentationCoordinator
    /// This host in the coordinator.
    let presenterID = UUID()
    /// Where ``messages`` come from.
    let appMessages: AsyncStream<BridgeMessage>.Continuation

    /// Messages from the content for the app: dismiss, complete, navigate, open link, purchase,
    /// restore and custom messages (captures go to the capture queue instead).
    public nonisolated let messages: AsyncStream<BridgeMessage>

    /// - Parameters:
    ///   - storage: a folder for the host's own state (backoff, the last authorised
    ///     configuration, the capture queue); created when missing. Partial downloads live in
    ///     the cache, shared with every process that uses it.
    ///   - captureSink: where captured events go; nil posts them to the capture endpoint.
    ///   - coordinator: the hosts it presents one at a time with: by default every host of
    ///     the process.
    /// - Throws: ``HostError/Code/storage`` when the state cannot be opened.
    public init(
        configuration: JourneyConfiguration, cache: LarderCache, renderer: any JourneyRenderer, storage: String,
        transport: any HTTPTransport = platformTransport(), clock: any HostClock = SystemClock(),
        captureSink: (any CaptureSink)? = nil, coordinator: PresentationCoordinator = .shared
    ) throws(HostError) {
        do { try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true) } catch {
            throw HostError(
                storage: HostStorageError(.folder, "cannot create the folder: \(error)", path: storage), "cannot create the host state folder")
        }
        self.configuration = configuration
        self.cache = cache
        self.clock = clock
        self.store = try HostStore(path: storage + "/host.sqlite")
        self.coordinator = coordinator
        observation = HostObservation(clock: clock)
        origin = OriginLink(transport: transport)
        driver = RendererDriver(renderer: renderer, clock: clock)
        captures = CaptureLane(path: storage + "/capture.sqlite", sink: captureSink)
        (messages, appMessages) = AsyncStream.makeStream(of: BridgeMessage.self)
    }

    /// Starts passing renderer messages on, in order (once).
    func listenToBridge() {
        guard let incoming = driver.takeBridgeMessages() else { return }
        driver.bridgeTask = Task { [weak self] in
            for await message in incoming {
                guard let self else { return }
                await self.receive(message)
            }
        }
    }

    deinit {
        // The components cancel their own tasks as they go.
        preparation?.task.cancel()
    }

    // MARK: Observation

    /// How ready the host is to present.
    public var readiness: Readiness { observation.readiness }

    /// Whether the journey is on screen.
    public var presentationState: PresentationState { presentation }

    /// The current readiness, then every change, until the host is disposed.
    public func readinessUpdates() -> AsyncStream<Readiness> { observation.readinessUpdates() }

    /// The current presentation state, then every change, until the host is disposed.
    public func presentationUpdates() -> AsyncStream<PresentationState> { observation.presentationUpdates() }

    /// Progress (0…1) of the latest ``prepare()`` or ``prefetch(journeys:)``: its current
    /// value, then every rise, until the host is disposed. Each operation starts at 0, rises
    /// as its bundles download (a warm-up gives each journey an equal share) and ends at 1 when
    /// it succeeds; content already cached goes from 0 to 1 at once. For a progress bar.
    public func progressUpdates() -> AsyncStream<Double> { observation.progressMeter.subscribe() }

    /// What the host did and why, oldest first: its own last 500 entries, and the last 100
    /// that messages from the content caused (captures), so content cannot push the host's out.
    /// Messages the bridge refused are counted (``bridgeCounts()``), not listed.
    public func timeline() -> [TimelineEntry] { observation.entries }

    /// What the content posted over the renderer bridge since the host was created: messages
    /// delivered, and those refused as too large, past the rate limit or malformed
    /// (``BridgeLimits``).
    public func bridgeCounts() -> BridgeCounts { driver.bridge.counts }

    /// The presentation's state; setting it publishes a change to ``presentationUpdates()``.
    var presentation: PresentationState {
        get { stage.presentation }
        set {
            stage.presentation = newValue
            observation.presentationChanged(to: newValue)
        }
    }

    func setReadiness(_ value: Readiness) { observation.setReadiness(value) }

    /// Adds one of the host's own entries to the timeline.
    func note(_ kind: TimelineEntry.Kind, _ detail: String) { observation.note(kind, detail) }

    /// Adds an entry a message from the content caused (its own bound: see ``timeline()``).
    func noteContent(_ kind: TimelineEntry.Kind, _ detail: String) { observation.noteContent(kind, detail) }

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
        for task in origin.liveFetches.values { task.cancel() }
        if let fetcher = origin.currentFetcher { await fetcher.cancelAll() }
        driver.bridgeTask?.cancel()
        endBridgePeriod()
        driver.rendererEventTask?.cancel()
        let outcome = finishSession(.app)
        presentation = .hidden
        stage.presented?.content.lease.release()
        stage.presented = nil
        stage.endPreview()
        stage.releasePrepared()
        for fetcher in origin.retired { await fetcher.cancelAll() }
        driver.start?.cancel()
        await driver.renderer.stop()
        note(.disposed, "host disposed" + (outcome.map { "; the open presentation ended: " + $0 } ?? ""))
        setReadiness(.disposed)
        observation.finish()
        appMessages.finish()
    }

    /// The durable capture queue, opened on first use.
    func captureQueue() throws(HostError) -> CaptureQueue { try captures.queue() }

    func checkUsable() throws(HostError) {
        if disposed { throw HostError(.disposed, "the host was disposed") }
    }
}
