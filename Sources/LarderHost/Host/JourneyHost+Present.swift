import Foundation
import LarderCache
import LarderFormat

extension JourneyHost {
    /// Prepares the journey: resolves its configuration (see ``resolveFlow(forceRefresh:)``) while the
    /// renderer starts, and, for a capable renderer, loads it hidden until the first screen's
    /// essential assets resolved.
    ///
    /// Idempotent: concurrent calls share one piece of work, and a preparation that is still
    /// fresh (younger than the refresh interval, authorised since launch) returns at once; one
    /// in the window's second half also returns at once and refreshes in the background. An
    /// unloaded preparation (memory warning) is rebuilt from the cache within the window.
    /// - Parameter forceRefresh: skip the fresh cache, prepared content included, and ask the
    ///   origin (``resolveFlow(forceRefresh:)``): the same revision is renewed in place, a new
    ///   one prepared; without a live answer the rest of the fallback chain serves it, its
    ///   ``PreparedJourney/fallbackReason`` saying why. While a presentation is open it asks
    ///   as ``refresh(force:)`` does without `force` (a new revision is staged) and returns
    ///   what is shown. A backoff still holds (only `refresh(force: true)` asks during one).
    /// - Throws: ``HostError``; ``HostError/Code/denied`` after the origin denied the scope.
    @discardableResult
    public func prepare(forceRefresh: Bool = false) async throws(HostError) -> PreparedJourney {
        try checkUsable()
        if case .presented = presentation, stage.preview != nil { return try await preparedDuringPreview(forceRefresh: forceRefresh) }
        if case .presented = presentation, let shown = stage.presented {
            if forceRefresh { await refreshNow(generation: lifecycle.generation, evenInBackground: true) }
            return stage.presented?.journey ?? shown.journey
        }
        if !forceRefresh, let current = stage.prepared, let decision = freshness(of: current.journey), decision != .requiresFetch {
            if decision == .presentAndRefresh { await schedule { $0.refreshRequested() } }
            if current.isReady { return current.journey }
        }
        if !forceRefresh, let current = stage.prepared, current.journey.stale, current.isReady, servesStale(renewed: current.journey.renewed),
            let notBefore = try store.record(configuration.scope).notBefore, clock.now < notBefore
        {
            // Served stale and the origin may not be asked yet: nothing new to try.
            return current.journey
        }
        while true {
            switch lifecycle.join(forced: forceRefresh) {
            case .share(let running):
                return try await Self.value(of: running)
            case .waitOut(let running):
                // A forced refresh shares only a forced preparation: it waits out one that may
                // serve the cache, then starts its own.
                do { _ = try await running.value } catch {
                    // Its caller gets its error; this one asks the origin itself.
                }
                // Finished: its caller clears it too, perhaps after this call goes on.
                lifecycle.finished(running)
            case .start:
                let generation = lifecycle.generation
                let task = Task { () async throws -> PreparedJourney in
                    try await self.runPreparation(generation: generation, forceRefresh: forceRefresh)
                }
                lifecycle.started(task, forced: forceRefresh)
                defer { lifecycle.finished(task) }
                return try await Self.value(of: task)
            }
        }
    }

    /// Shows the journey, preparing it first when needed, within the presentation deadline
    /// (15 s by default). Each presentation gets a new session id. Presenting while presented
    /// returns the open session. One presentation at a time: another host of the same
    /// ``PresentationCoordinator`` presenting is dismissed first (its outcome: replaced). How
    /// this one ends: ``waitForCompletion()``, ``presentationResults()``.
    /// - Parameters:
    ///   - context: string values, as ``present(contextValues:preload:)`` takes JSON values.
    ///   - preload: this presentation's preload switch (``present(contextValues:preload:)``).
    /// - Throws: ``HostError/Code/deadlineExceeded`` (retryable) when not ready in time, or
    ///   what ``prepare(forceRefresh:)`` throws.
    @discardableResult
    public func present(context: [String: String] = [:], preload: Bool? = nil) async throws(HostError) -> PresentationSession {
        try await present(contextValues: context.mapValues(JSONValue.string), preload: preload)
    }

    /// Shows the journey as ``present(context:preload:)`` does, with a context of JSON values.
    /// - Parameters:
    ///   - contextValues: this presentation's context, merged over the host-wide context
    ///     (``JourneyConfiguration/context``; the presentation's value wins for a key in both):
    ///     the content reads the merged object as `window.larder.context`, and it is added to
    ///     the context of every event this session captures (the presentation-started event
    ///     included), over ``CaptureSettings/context``, fixed when each event is created.
    ///     Ignored when a session is already open.
    ///   - preload: this presentation's preload switch, over
    ///     ``JourneyConfiguration/preload``: true loads the content hidden and shows it once its
    ///     first screen's essential assets resolved (when the renderer and the bundle support
    ///     it), false loads it visible at once (direct presentation); nil as the preparation
    ///     chose.
    /// - Throws: what ``present(context:preload:)`` throws.
    @discardableResult
    public func present(contextValues: [String: JSONValue], preload: Bool? = nil) async throws(HostError) -> PresentationSession {
        try checkUsable()
        if case .presented(let session) = presentation { return session }
        let deadline = clock.now.adding(configuration.presentationDeadline)
        guard
            let session = try await Deadline.run(
                clock: clock, until: deadline, { () async throws(HostError) in try await self.show(context: contextValues, preload: preload) })
        else {
            note(.deadline, "not ready within \(DurationText.describe(configuration.presentationDeadline)); try again")
            setReadiness(.failed(.deadlineExceeded))
            throw HostError(.deadlineExceeded, "the journey was not ready within \(DurationText.describe(configuration.presentationDeadline))")
        }
        return session
    }

    /// Hides the journey. A capable renderer resets to the first screen while hidden and is
    /// reused next time; a newer revision staged during the presentation is prepared now (and
    /// the bundle shown until then goes from the cache once nothing leases it, unless a scope
    /// still keeps it); content invalidated while shown is prepared again. The presentation's
    /// outcome is ``PresentationOutcome/endedByApp`` (unless the content asked for a purchase
    /// or a restore).
    public func dismiss() async { await close(.app) }

    /// Ends the open presentation as ``dismiss()`` describes (a preview as
    /// ``preview(bundle:context:)`` does); `ending` says who ended it.
    func close(_ ending: PresentationOutcomeRule.Ending) async {
        await endSession(.dismissed(ending))
    }

    /// Memory warning: unloads a hidden renderer (presenting rebuilds it from the cache) and
    /// trims the cache's memory tier; an open presentation is kept.
    public func handleMemoryWarning() async {
        cache.handleMemoryPressure(.warning)
        guard !lifecycle.isDisposed, let current = stage.prepared else { return }
        let unloading = stage.memoryWarning()
        guard unloading != .none else { return }
        await perform(unloading)
        note(.unloaded, "memory warning: hidden renderer unloaded")
        setReadiness(.unloaded(current.journey))
    }

    // MARK: Internals

    private func runPreparation(generation: Int, forceRefresh: Bool) async throws(HostError) -> PreparedJourney {
        setReadiness(.preparing)
        observation.progressMeter.start()
        let starting = startRenderer()
        var flow: PreparedJourney
        var decision: FreshnessPolicy.Decision?
        do throws(HostError) {
            (flow, decision) = try await resolve(forceRefresh: forceRefresh)
            do throws(HostError) { try await Self.value(of: starting) } catch {
                driver.startFailed()
                throw error
            }
        } catch {
            if lifecycle.isCurrent(generation), error.code != .denied { setReadiness(.failed(error.code)) }
            throw error
        }
        guard lifecycle.isCurrent(generation) else { throw HostError(.cancelled, "the configuration changed") }
        // The bundle chosen may leave the cache before it is leased (another process sharing
        // the cache evicts it): that is a cache miss, resolved again, which fetches it or falls
        // back (stale, embedded) as any miss does; bounded, as another eviction may follow.
        // The same content keeps its lease and the loaded renderer, and takes the new standing.
        var attempt = 1
        while !stage.resolvedAgain(flow) {
            let next: PreparedContent
            do throws(HostError) { next = try await makePrepared(flow) } catch where Self.vanished(error) && attempt < Self.vanishedBundleAttempts {
                noteVanished(flow.bundle, error)
                attempt += 1
                do throws(HostError) { (flow, decision) = try await resolve(forceRefresh: false) } catch {
                    if lifecycle.isCurrent(generation), error.code != .denied { setReadiness(.failed(error.code)) }
                    throw error
                }
                guard lifecycle.isCurrent(generation) else { throw HostError(.cancelled, "the configuration changed") }
                continue
            } catch {
                setReadiness(.failed(error.code))
                throw error
            }
            // The lease is taken off the actor: the configuration may have changed meanwhile.
            guard lifecycle.isCurrent(generation) else {
                next.lease.release()
                throw HostError(.cancelled, "the configuration changed")
            }
            await perform(stage.prepared(next))
            break
        }
        if stage.prepared?.journey.preloaded == true {
            try await loadHidden()
        } else {
            note(.rendererReady, configuration.preload ? "direct presentation: the renderer starts when visible" : "preload off: the renderer loads the content when it is shown")
        }
        guard lifecycle.isCurrent(generation), let ready = stage.prepared else { throw HostError(.cancelled, "the configuration changed") }
        observation.progressMeter.finish()
        setReadiness(.ready(ready.journey))
        // The fallback chain's freshness decision, taken once: refresh now, or when due.
        if decision == .presentAndRefresh {
            await schedule { $0.refreshRequested() }
        } else if let due = refreshDue(of: flow) {
            await scheduleRefresh(at: due)
        }
        return ready.journey
    }

    /// Loads the prepared content into the renderer, hidden; a failure is left in readiness
    /// and the timeline, and the next present tries again.
    func loadHiddenRecordingFailure() async {
        do { try await loadHidden() } catch {
            // loadHidden recorded it.
        }
    }

    /// Loads the prepared content into the renderer, hidden; not while a preview holds the
    /// renderer (its dismissal loads it).
    func loadHidden() async throws(HostError) {
        guard stage.preview == nil, let current = stage.prepared, current.journey.preloaded, !current.loaded else { return }
        do {
            try await driver.renderer.load(current.content, visible: false)
        } catch {
            note(.failed, "the renderer failed: \(error)")
            setReadiness(.failed(error.code))
            throw error
        }
        guard stage.loaded(current.lease) else { return }
        note(.rendererReady, "revision \(current.journey.revision) ready hidden")
        setReadiness(.ready(current.journey))
    }

    private func show(context: [String: JSONValue], preload: Bool?) async throws(HostError) -> PresentationSession {
        let journey = try await prepare()
        if case .presented(let session) = presentation { return session }
        guard let current = stage.prepared, current.journey == journey || current.journey.bundle == journey.bundle else {
            throw HostError(.cancelled, "the prepared content changed")
        }
        var session = PresentationSession(
            id: UUID().uuidString.lowercased(), journey: journey.journey, revision: journey.revision, bundle: journey.bundle)
        session.contextValues = configuration.context.merging(context) { $1 }
        session.source = journey.source
        session.published = journey.published
        session.assignment = journey.assignment
        let capable = presentationMode(of: current.lease) == .prepared
        switch PresentationMode.forPresentation(prepared: current.journey.preloaded, asked: preload, capable: capable) {
        case .prepared where current.journey.preloaded:
            if !current.loaded { try await loadHidden() }
        case .prepared:
            // Prepared for direct presentation; this one asked to preload: loaded hidden now.
            try await driver.renderer.load(current.content, visible: false)
            _ = stage.loaded(current.lease)
        case .direct:
            // Whatever the renderer holds hidden is replaced by this visible load.
            stage.rendererUnloaded()
            var content = current.content
            content.contextValues = session.contextValues
            try await driver.renderer.load(content, visible: true)
        }
        try await appear(session)
        if Task.isCancelled {
            try await driver.renderer.reset()
            throw HostError(.cancelled, "the presentation deadline passed")
        }
        await perform(stage.opened(session, context: session.contextValues, entry: current.lease.manifest.entry))
        note(.presented, "session \(session.id): revision \(journey.revision) from \(journey.source.rawValue)")
        recordPresentation(session)
        // A host that began presenting meanwhile ends now.
        await claimScreen()
        return session
    }

    /// Shows loaded content as `session`: waits out the foreground grace, ends another host's
    /// presentation (one at a time), starts the session's own bridge rate limit and shows it.
    /// - Throws: ``HostError/Code/cancelled`` when the presentation deadline passed before it
    ///   was shown (the caller was told it failed: it must not appear after all); what the
    ///   renderer's `show` throws. Past `show`, the caller checks the deadline and undoes it.
    func appear(_ session: PresentationSession) async throws(HostError) {
        try await waitOutForegroundGrace()
        if Task.isCancelled { throw HostError(.cancelled, "the presentation deadline passed") }
        await replaceOtherPresentation()
        if Task.isCancelled { throw HostError(.cancelled, "the presentation deadline passed") }
        endBridgePeriod(of: stage.session?.session)
        try await driver.renderer.show(session)
    }

    /// Leases a resolved flow's bundle and decides between prepared and direct presentation:
    /// prepared when both the renderer and the bundle support it.
    func makePrepared(_ flow: PreparedJourney) async throws(HostError) -> PreparedContent {
        let lease = try await leaseBundle(flow.bundle)
        let mode = configuration.preload ? presentationMode(of: lease) : .direct
        return PreparedContent(
            journey: flow.preloaded(mode == .prepared),
            content: RenderContent(journey: flow.journey, revision: flow.revision, lease: lease, cache: cache))
    }

    /// How this renderer can present the leased bundle (``PresentationMode``).
    func presentationMode(of lease: BundleLease) -> PresentationMode {
        PresentationMode.of(rendererSupportsPreparation: driver.renderer.supportsPreparation, bundleCapabilities: lease.manifest.renderer.capabilities)
    }

    func startRenderer() -> Task<Void, any Error> {
        if let start = driver.start { return start }
        listenToBridge()
        listenToRendererEvents()
        let task = Task { [renderer = driver.renderer, bridge = driver.bridge] () async throws in try await renderer.start(bridge: bridge) }
        driver.keepStart(task)
        return task
    }

    static func value<T>(of task: Task<T, any Error>) async throws(HostError) -> T {
        do { return try await task.value } catch let error as HostError { throw error } catch {
            throw HostError(.cancelled, "the work was cancelled")
        }
    }
}
