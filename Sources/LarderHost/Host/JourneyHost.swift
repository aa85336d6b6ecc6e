import Foundation
import LarderCache
import LarderFormat
import LarderTransport

// How it is built: the host performs; it decides nothing itself. Its stateful rules are state
// machines whose events return actions, which it performs in one place per machine and whose
// tasks it keeps (HostLifecycle: generation, disposal, the shared preparation, authorisation
// this launch, the embedded default; PresentationStage: what is prepared, staged and shown,
// and the open session; RefreshSchedule; CaptureDrain). The rest of its state lives in
// components it owns, plain types isolated to it (no hop off the actor), none of which reads
// another's and each of which changes only through its own methods: HostObservation,
// OriginLink (with the refresh schedule), RendererDriver and CaptureLane. Each other rule is
// one pure decision (FallbackChain, FreshnessPolicy, FreshnessRenewal, Backoff, DenialRule,
// StagingRule, DismissalRule, PresentationOutcomeRule, PresentationMode, RendererGate,
// RendererTermination, DocumentTrust, ConfigurationChange); Docs/HostRules.md maps each rule
// to its file and tests.

/// Prepares, presents and refreshes one journey for one presentation surface.
///
/// ``prepare(forceRefresh:)`` fetches the configuration (with its ETag) and starts the
/// renderer in parallel, then keeps one hidden renderer ready within the freshness window;
/// ``present(context:preload:)`` shows it at once, offline too. Every rule of freshness,
/// denial, backoff and configuration change is described on the method it applies to; time,
/// network and renderer are injected.
///
/// Hosts sharing a ``PresentationCoordinator`` (by default, all of the process) present one
/// at a time, and a logout of everything, the app's foreground and a memory warning reach all
/// of them through it. <doc:HostingAJourney> walks through a journey's life with a runnable
/// example.
public actor JourneyHost {
    let cache: LarderCache
    let clock: any HostClock
    let store: HostStore

    /// The current configuration.
    public internal(set) var configuration: JourneyConfiguration
    /// Generation, disposal, the shared preparation, authorisation this launch, the embedded
    /// default.
    var lifecycle = HostLifecycle()
    /// What is prepared, staged and on screen, and the open session.
    var stage = PresentationStage()
    /// Readiness, presentation and progress streams, the app's messages, and the timeline.
    let observation: HostObservation
    /// The link to the origin: live fetches, bundle fetchers, trust's memory, the refresh
    /// schedule.
    let origin: OriginLink
    /// The renderer, its start, the bridge and the gate's verdicts.
    let driver: RendererDriver
    /// The capture queue, its backlog, the drain and the sink.
    let captures: CaptureLane
    /// This host among the hosts it presents one at a time with (``PresentationCoordinator``).
    let seat: PresentationCoordinator.Seat

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
    ///   - connectivity: whether the network is reachable: on its return, queued captures are
    ///     delivered without any call. The platform's monitor by default;
    ///     nil: only the other triggers deliver.
    ///   - configuration: the journey, key, person, origin, trusted keys and policies.
    ///   - cache: the cache the host installs bundles into and leases them from.
    ///   - renderer: shows the content: ``HeadlessRenderer``, a WebKitGTK renderer, or another
    ///     ``JourneyRenderer``.
    ///   - transport: how requests are sent; the platform's HTTP client unless a test swaps it.
    ///   - clock: the host's time, which tests drive by hand.
    /// - Throws: ``HostError/Code/storage`` when the state cannot be opened.
    public init(
        configuration: JourneyConfiguration, cache: LarderCache, renderer: any JourneyRenderer, storage: String,
        transport: any HTTPTransport = platformTransport(), clock: any HostClock = SystemClock(),
        captureSink: (any CaptureSink)? = nil, coordinator: PresentationCoordinator = .shared,
        connectivity: (any ConnectivitySignal)? = platformConnectivity()
    ) throws(HostError) {
        do { try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true) } catch {
            throw HostError(
                storage: HostStorageError(.folder, "cannot create the folder: \(error)", path: storage), "cannot create the host state folder")
        }
        self.configuration = configuration
        self.cache = cache
        self.clock = clock
        self.store = try HostStore(path: storage + "/host.sqlite")
        seat = PresentationCoordinator.Seat(coordinator: coordinator)
        let (messages, appMessages) = AsyncStream.makeStream(of: BridgeMessage.self)
        self.messages = messages
        observation = HostObservation(clock: clock, messages: appMessages)
        origin = OriginLink(transport: transport)
        driver = RendererDriver(renderer: renderer, clock: clock)
        captures = CaptureLane(path: storage + "/capture.sqlite", sink: captureSink)
        seat.join(
            PresentationCoordinator.Member(
                logout: { [weak self] extent throws(HostError) in try await self?.signOut(extent) },
                setForeground: { [weak self] isForeground in await self?.setForeground(isForeground) },
                memoryWarning: { [weak self] in await self?.handleMemoryWarning() }))
        if let connectivity {
            // Subscribed now, listened to from the actor (the initialiser may not touch the
            // capture lane once `self` is shared).
            let updates = connectivity.updates()
            Task { [weak self] in await self?.listen(to: updates) }
        }
    }

    /// Starts passing renderer messages on, in order (once).
    func listenToBridge() {
        guard let incoming = driver.takeBridgeMessages() else { return }
        driver.listen(bridge: Task { [weak self] in
            for await message in incoming {
                guard let self else { return }
                await self.receive(message)
            }
        })
    }

    deinit {
        // The components cancel their own tasks as they go.
        lifecycle.preparation?.task.cancel()
        seat.leave()
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

    /// Progress (0…1) of the latest ``prepare(forceRefresh:)`` or ``prefetch(journeys:)``: its current
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

    /// The presentation's state (the stage's).
    var presentation: PresentationState { stage.presentation }

    func setReadiness(_ value: Readiness) { observation.setReadiness(value) }

    /// Adds one of the host's own entries to the timeline.
    func note(_ kind: TimelineEntry.Kind, _ detail: String) { observation.note(kind, detail) }

    /// Adds an entry a message from the content caused (its own bound: see ``timeline()``).
    func noteContent(_ kind: TimelineEntry.Kind, _ detail: String) { observation.noteContent(kind, detail) }

    // MARK: Configuration and disposal

    /// Cancels preparation and refresh work, cuts the renderer bridge, stops the renderer and
    /// makes the host unavailable. Queued captures stay queued for another host.
    public func dispose() async {
        guard let ending = lifecycle.disposed() else { return }
        perform(ending)
        await schedule { $0.cancelled() }
        origin.cancelLiveFetches()
        if let fetcher = origin.currentFetcher { await fetcher.cancelAll() }
        driver.stopListening()
        captures.stopListening()
        let outcome = await perform(stage.disposed())
        for fetcher in origin.retired { await fetcher.cancelAll() }
        driver.cancelStart()
        await driver.renderer.stop()
        note(.disposed, "host disposed" + (outcome.map { "; the open presentation ended: " + $0 } ?? ""))
        setReadiness(.disposed)
        observation.finish()
        seat.leave()
    }

    /// Performs what ``HostLifecycle`` returned: the one place its actions are performed.
    func perform(_ action: HostLifecycle.Action) {
        switch action {
        case .none: break
        case .cancel(let preparation): preparation.cancel()
        }
    }

    /// Whether work begun in `generation` still belongs to the current configuration and the
    /// host is not disposed.
    func isCurrent(_ generation: Int) -> Bool { lifecycle.isCurrent(generation) && !lifecycle.isDisposed }

    /// The durable capture queue, opened on first use.
    func captureQueue() throws(HostError) -> CaptureQueue { try captures.queue() }

    func checkUsable() throws(HostError) {
        if lifecycle.isDisposed { throw HostError(.disposed, "the host was disposed") }
    }
}
