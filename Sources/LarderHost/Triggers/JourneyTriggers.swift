import Foundation
import LarderCache
import LarderFormat
import LarderTransport

/// App events that present journeys (an app calls ``trigger(_:properties:)`` with an event,
/// and the journey the origin maps it to appears): a trigger router over several ``JourneyHost``s,
/// one per journey, all of one origin, key and person.
///
/// The origin publishes which event presents which journey, and how often one person may see
/// it (`larder publish … --journey <id> --trigger <event> --reentry once|always|<duration>`), in
/// its triggers document (`TriggerDocument`): signed, versioned and revalidated with ETags
/// like a journey's, and kept in the router's storage for offline use. ``trigger(_:properties:)``
/// answers with a typed decision (``TriggerDecision``): shown, suppressed (reentry, another
/// presentation open, the foreground grace, no content, denied) or no match. Reentry is
/// remembered per person across restarts and forgotten by a logout.
///
/// Why a router of its own, and not the ``PresentationCoordinator``: a trigger needs an origin,
/// a key, a person, trusted keys, storage and a clock (a scope), which the coordinator, a
/// process-wide lock over who is on screen, does not have and should not; and a process may
/// hold routers for several origins. The router presents through its hosts, and so through
/// their coordinator: the foreground grace and one-at-a-time hold, and a logout or the app's
/// foreground reach it with every host (it joins the coordinator's group).
public actor JourneyTriggers {
    /// The base configuration: key, origin, person, trusted keys and the host rules; each
    /// journey's host gets it with its own journey id.
    public private(set) var configuration: JourneyConfiguration
    /// What the hosts it makes share (cache, storage, transport, clock, coordinator, …).
    let parts: TriggerHostParts
    let store: TriggerStore
    /// This router in its coordinator's group.
    let id = UUID()
    /// The hosts made so far, by journey id.
    private var hosts: [String: JourneyHost] = [:]
    /// One trigger at a time.
    private(set) var gate = TriggerGate()
    /// The request for the triggers document on its way, shared by concurrent callers.
    private(set) var revalidationTask: Task<HostError?, Never>?
    /// The last stored document whose signature checked out, and the keys it was checked against.
    private(set) var verified: (document: TriggerDocument, keys: [PublicKey])?
    private var disposed = false

    var clock: any HostClock { parts.clock }
    nonisolated var coordinator: PresentationCoordinator { parts.coordinator }
    var transport: any HTTPTransport { parts.transport }

    /// Whether ``dispose()`` was called.
    var isDisposed: Bool { disposed }

    /// Keeps the request for the triggers on its way.
    func keepRevalidation(_ task: Task<HostError?, Never>) { revalidationTask = task }

    /// The request for the triggers ended.
    func revalidationFinished() { revalidationTask = nil }

    /// Remembers `document` as verified against the trusted keys (nil: forgets it).
    func rememberVerified(_ document: TriggerDocument?) { verified = document.map { ($0, configuration.trustedKeys) } }

    /// - Parameters:
    ///   - configuration: key, origin, identity, trusted keys and host rules; its journey id is
    ///     not used (each host takes the id of the journey it presents).
    ///   - storage: a folder for the router's and its hosts' state (the triggers document,
    ///     reentry, each host's own state); created when missing.
    ///   - renderer: makes the renderer of the host of a journey, when it is first needed.
    ///   - connectivity: as ``JourneyHost/init(configuration:cache:renderer:storage:transport:clock:captureSink:coordinator:connectivity:)``.
    ///   - cache: the cache every host of the router uses.
    ///   - transport: how requests are sent; the platform's HTTP client unless a test swaps it.
    ///   - clock: the router's and its hosts' time, which tests drive by hand.
    ///   - captureSink: where its hosts' captured events go; nil posts them to the capture
    ///     endpoint.
    ///   - coordinator: the hosts its hosts present one at a time with: by default every host of
    ///     the process.
    /// - Throws: ``HostError/Code/storage`` when the state cannot be opened.
    public init(
        configuration: JourneyConfiguration, cache: LarderCache, storage: String, renderer: @escaping @Sendable (String) -> any JourneyRenderer,
        transport: any HTTPTransport = platformTransport(), clock: any HostClock = SystemClock(), captureSink: (any CaptureSink)? = nil,
        coordinator: PresentationCoordinator = .shared, connectivity: (any ConnectivitySignal)? = platformConnectivity()
    ) throws(HostError) {
        do { try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true) } catch {
            throw HostError(
                storage: HostStorageError(.folder, "cannot create the folder: \(error)", path: storage), "cannot create the trigger state folder")
        }
        self.configuration = configuration
        self.parts = TriggerHostParts(
            cache: cache, storage: storage, transport: transport, clock: clock, captureSink: captureSink, coordinator: coordinator,
            connectivity: connectivity, makeRenderer: renderer)
        self.store = try TriggerStore(path: storage + "/triggers.sqlite")
        coordinator.join(
            id,
            PresentationCoordinator.Member(
                logout: { [weak self] extent throws(HostError) in try await self?.forgetShown(everyone: extent == .everything) },
                setForeground: { _ in }, memoryWarning: {}))
    }

    deinit { coordinator.leave(id) }

    /// The person reentry is remembered for: the identity's id, or the device's anonymous person.
    var person: String { configuration.identity?.externalID ?? "" }

    // MARK: Triggering

    /// Fires an app event: presents the journey the origin's triggers map it to, when the
    /// trigger's reentry policy, the screen (one presentation at a time) and the foreground
    /// grace let it, through that journey's host (``host(for:)``), which prepares it as
    /// ``JourneyHost/present(contextValues:preload:)`` does (offline: its cache, then its
    /// embedded default).
    /// - Parameters:
    ///   - event: the event's name (`EventName`: `checkout_started`, `paywall:closed`).
    ///   - properties: added to the presentation's context with `larder:trigger` (the event),
    ///     over the host-wide context: the content reads them, and its captures carry them.
    /// - Returns: what happened: shown (the journey and its session), suppressed (why), or
    ///   no match. The triggers document is read from storage, and asked for when there is
    ///   none (within ``JourneyConfiguration/fetchDeadline``) or revalidated behind the answer
    ///   when older than 10 minutes.
    /// - Throws: ``HostError/Code/invalidEventName`` naming a name that breaks the rule;
    ///   ``HostError/Code/storage`` when the router's state cannot be read or written;
    ///   ``HostError/Code/disposed`` after ``dispose()``.
    public func trigger(_ event: String, properties: [String: JSONValue] = [:]) async throws(HostError) -> TriggerDecision {
        guard !disposed else { throw HostError(.disposed, "the trigger router was disposed") }
        guard EventName.isValid(event) else { throw HostError(.invalidEventName, EventName.rule(for: event)) }
        let document: TriggerDocument
        switch try await triggersDocument() {
        case .document(let current): document = current
        case .none: return .noMatch
        case .denied: return .suppressed(journey: nil, reason: .denied)
        case .unavailable: return .suppressed(journey: nil, reason: .noContent)
        }
        let trigger = document.trigger(for: event)
        var lastShown: Date?
        var graceEnds: Date?
        if let trigger {
            lastShown = try store.lastShown(trigger.journey, to: person)
            let target = try host(for: trigger.journey)
            graceEnds = await target.foregroundGraceEnd()
        }
        let action = gate.triggered(trigger, lastShown: lastShown, now: clock.now, presentationOpen: coordinator.isHeld, graceEnds: graceEnds)
        return try await perform(action, event: event, properties: properties)
    }

    /// Performs what ``TriggerGate`` returned: the one place its actions are performed.
    private func perform(_ action: TriggerGate.Action, event: String, properties: [String: JSONValue]) async throws(HostError) -> TriggerDecision {
        switch action {
        case .answer(let decision):
            return decision
        case .record(let journey, let time, let decision):
            try store.recordShown(journey, to: person, at: time)
            return decision
        case .present(let journey):
            let next: TriggerGate.Action
            do {
                let host = try host(for: journey)
                let session = try await host.present(contextValues: properties.merging(["larder:trigger": .string(event)]) { $1 })
                next = gate.presented(session, now: clock.now)
            } catch {
                next = gate.failed(denied: error.code == .denied)
            }
            return try await perform(next, event: event, properties: properties)
        }
    }

    /// The host that presents `journey`: made on first use with the base configuration, the
    /// journey's id, the router's storage, cache, transport, clock, sink and coordinator.
    /// - Throws: ``HostError/Code/storage`` when its state cannot be opened;
    ///   ``HostError/Code/disposed`` after ``dispose()``.
    public func host(for journey: String) throws(HostError) -> JourneyHost {
        guard !disposed else { throw HostError(.disposed, "the trigger router was disposed") }
        if let host = hosts[journey] { return host }
        let host = try parts.host(for: journey, base: configuration)
        hosts[journey] = host
        return host
    }

    // MARK: Configuration, logout, disposal

    /// Switches to another base configuration (another person, key or origin): every host
    /// made so far takes it with its journey id (``JourneyHost/updateConfiguration(_:)``).
    /// Reentry is remembered per person, so another identity starts with its own.
    public func updateConfiguration(_ new: JourneyConfiguration) async {
        guard !disposed, new != configuration else { return }
        configuration = new
        rememberVerified(nil)
        for (journey, host) in hosts {
            var scoped = new
            scoped.journeyID = journey
            await host.updateConfiguration(scoped)
        }
    }

    /// Signs the person out: which journeys they were shown (reentry) is forgotten, and every
    /// host of the router signs out of its scope (``JourneyHost/logout()``). The triggers
    /// document stays (it is the origin's, not the person's).
    /// - Throws: the first failure (``HostError/Code/storage``); what was cleared stays cleared.
    public func logout() async throws(HostError) {
        try forgetShown(everyone: false)
        var failure: HostError?
        for host in hosts.values {
            do { try await host.logout() } catch {
                if failure == nil { failure = error }
            }
        }
        if let failure { throw failure }
    }

    /// Forgets what the person, or everyone, was shown (a logout through the coordinator).
    private func forgetShown(everyone: Bool) throws(HostError) {
        try store.forgetShown(to: everyone ? nil : person)
    }

    /// Disposes every host of the router and leaves the coordinator; triggers answer
    /// ``HostError/Code/disposed`` from then on.
    public func dispose() async {
        guard !disposed else { return }
        disposed = true
        revalidationTask?.cancel()
        for host in hosts.values { await host.dispose() }
        coordinator.leave(id)
    }
}
