import LarderFormat

/// The host's own bookkeeping over its life: the generation (bumped by every configuration
/// change, logout and disposal, so late answers for an older scope are dropped), the disposal,
/// the preparation under way that concurrent ``JourneyHost/prepare(forceRefresh:)`` calls
/// share, the scopes the origin authorised since the host was created, and the embedded
/// default's bundle once imported.
///
/// A pure state machine, as ``CaptureDrain``: each event is a `mutating func`; those that end
/// work return an ``Action``, and ``JourneyHost`` performs it in one place
/// (`JourneyHost.swift`, `perform(_:)`). The preparation's task rides along in the state
/// (as swift-async-algorithms' `DebounceStateMachine` keeps its task) so that the machine can
/// name it in ``Join`` and in ``Action/cancel(_:)``; the machine never runs or awaits it.
struct HostLifecycle {
    /// A preparation under way.
    typealias Work = Task<PreparedJourney, any Error>

    /// The preparation under way: its generation, its task, and whether it was forced.
    struct Preparation: Sendable, Equatable {
        let generation: Int
        let task: Work
        let forced: Bool
    }

    /// What the host does after an event.
    enum Action: Sendable, Equatable {
        /// Nothing now.
        case none
        /// Cancel the preparation that was under way (its callers get a cancellation).
        case cancel(Work)
    }

    /// How a call of ``JourneyHost/prepare(forceRefresh:)`` that must prepare goes on.
    enum Join: Sendable, Equatable {
        /// Share the preparation under way: its result is this call's.
        case share(Work)
        /// A forced call meets one that may serve the cache: wait it out, then ask again.
        case waitOut(Work)
        /// Nothing of this generation is under way: start a preparation.
        case start
    }

    /// Bumped by every configuration change, logout and disposal.
    private(set) var generation = 0
    /// Set by ``disposed()``: the host is unavailable from then on.
    private(set) var isDisposed = false
    /// The preparation under way, if any.
    private(set) var preparation: Preparation?
    /// Scopes the origin authorised since this host was created: after a restart a new
    /// presentation needs fresh authorisation.
    private(set) var authorised: Set<String> = []
    /// The embedded default's bundle, once imported.
    private(set) var embeddedBundle: Digest?

    /// Whether work begun in `generation` still belongs to the current configuration.
    func isCurrent(_ generation: Int) -> Bool { generation == self.generation }

    /// Whether the origin authorised `scope` since the host was created.
    func isAuthorised(_ scope: String) -> Bool { authorised.contains(scope) }

    // MARK: Events

    /// The host is disposed: later answers are dropped, the preparation under way is
    /// cancelled. Nil when it already was.
    mutating func disposed() -> Action? {
        guard !isDisposed else { return nil }
        isDisposed = true
        return invalidated()
    }

    /// What was prepared no longer holds (a configuration change, a logout, a removal):
    /// answers on their way are dropped and the preparation under way is cancelled.
    mutating func invalidated() -> Action {
        generation += 1
        defer { preparation = nil }
        return preparation.map { .cancel($0.task) } ?? .none
    }

    /// How a preparation of the current generation goes on: a forced one shares only a forced
    /// preparation (it waits out one that may serve the cache, then asks again); any other
    /// shares the one under way.
    func join(forced: Bool) -> Join {
        guard let running = preparation, running.generation == generation else { return .start }
        return forced && !running.forced ? .waitOut(running.task) : .share(running.task)
    }

    /// `task` prepares the current generation; calls from now on share it.
    mutating func started(_ task: Work, forced: Bool) {
        preparation = Preparation(generation: generation, task: task, forced: forced)
    }

    /// `task` ended: forgotten, unless another took its place meanwhile.
    mutating func finished(_ task: Work) {
        if preparation?.task == task { preparation = nil }
    }

    /// The origin authorised `scope`.
    mutating func authorised(_ scope: String) { authorised.insert(scope) }

    /// `scope` needs fresh authorisation again (a denial, a logout, keys that refuse its
    /// stored document).
    mutating func deauthorised(_ scope: String) { authorised.remove(scope) }

    /// Every scope needs fresh authorisation again (a logout of everything).
    mutating func deauthorisedAll() { authorised.removeAll() }

    /// The embedded default was imported as `bundle`.
    mutating func embeddedImported(_ bundle: Digest) { embeddedBundle = bundle }

    /// The configuration names another embedded default (or none): imported again on use.
    mutating func embeddedChanged() { embeddedBundle = nil }
}
