import Foundation
import LarderCache
import LarderFormat

extension JourneyHost {
    /// Tells the host whether the app is in the foreground. Refreshes run only in the
    /// foreground; coming back (a resume) refreshes at once when one is due, after any backoff,
    /// and delivers queued captures.
    public func setForeground(_ isForeground: Bool) async {
        guard !lifecycle.isDisposed, isForeground != origin.schedule.foreground else { return }
        guard isForeground else { return await schedule { $0.backgrounded() } }
        drainCaptures(.foregrounded)
        let now = clock.now
        let contentDue = nextRefreshDate()
        await schedule { $0.foregrounded(at: now, contentDue: contentDue) }
    }

    /// Asks the origin now (an explicit retry), subject to backoff and `Retry-After` unless
    /// `force`d. Prepared content follows a new revision; an open presentation keeps what it
    /// shows and the new revision is staged for after dismissal. With nothing prepared, only
    /// the stored state is renewed: the next ``prepare(forceRefresh:)`` finds it fresh.
    /// - Parameter force: ask even during a backoff or `Retry-After`: for a user's explicit
    ///   action only (a pull to refresh, a retry button); the host never forces by itself.
    ///   The request still carries `If-None-Match`, and a failure sets the backoff as usual.
    /// - Returns: why the refresh failed (the origin could not be asked or refused, a trusted
    ///   key refused the document, a backoff is on), nil when it succeeded: a caller that
    ///   prepares next, and meets the backoff this failure set, can report the cause instead.
    @discardableResult
    public func refresh(force: Bool = false) async -> HostError? {
        guard !lifecycle.isDisposed else { return HostError(.disposed, "the host was disposed") }
        if force { note(.forced, "an explicit refresh: asking the origin whatever the backoff") }
        return await refreshNow(generation: lifecycle.generation, evenInBackground: true, force: force)
    }

    /// Feeds the refresh schedule an event and performs what it returns: the one place
    /// ``RefreshSchedule``'s actions are performed. The host makes the refresh task (it calls
    /// back here) and the ``OriginLink`` keeps it.
    func schedule(_ event: (inout RefreshSchedule) -> RefreshSchedule.Action) async {
        let action = origin.schedule(event)
        switch action {
        case .none:
            break
        case .startTimer(let date):
            let generation = lifecycle.generation
            let clock = clock
            origin.keepRefreshTask(Task { [weak self] in
                do { try await clock.sleep(until: date) } catch { return }
                _ = await self?.refreshNow(generation: generation)
            })
            note(.refreshScheduled, "refresh at \(Self.iso(date))")
        case .startRefresh:
            let generation = lifecycle.generation
            origin.keepRefreshTask(Task { [weak self] in _ = await self?.refreshNow(generation: generation, evenInBackground: true) })
        case .refresh:
            await refreshNow(generation: lifecycle.generation)
        case .cancelTimer:
            origin.cancelRefreshTask()
        case .releaseTimer:
            origin.releaseRefreshTask()
        }
    }

    /// Keeps one refresh scheduled, the earliest asked for (none once disposed).
    func scheduleRefresh(at date: Date) async {
        guard !lifecycle.isDisposed else { return }
        await schedule { $0.scheduled(at: date) }
    }

    /// When the shown or prepared content next needs a refresh.
    private func nextRefreshDate() -> Date? {
        (stage.presented ?? stage.prepared).flatMap { refreshDue(of: $0.journey) }
    }

    /// Asks the origin and applies the answer; returns why that failed, nil when it did not
    /// (or did not ask: in the background, or for an older configuration).
    @discardableResult
    func refreshNow(generation: Int, evenInBackground: Bool = false, force: Bool = false) async -> HostError? {
        await schedule { $0.fired() }
        guard isCurrent(generation), origin.schedule.foreground || evenInBackground else { return nil }
        let outcome = await live(configuration, generation: generation, force: force)
        guard isCurrent(generation) else { return nil }
        let document: JourneyDocument, renewed: Date, source: ContentSource
        switch outcome {
        case .authorised(let authorised, let when, let from):
            (document, renewed, source) = (authorised, when, from)
        case .denied(let status):
            return HostError(.denied, "the origin denied journey '\(configuration.journeyID)'", status: status)
        case .failed(let error):
            // Failures neither renew freshness nor schedule a retry: the next present, resume or
            // explicit retry may try again after the backoff.
            await markRemovedIfKept()
            return error
        }
        let flow: PreparedJourney
        do { flow = try await gated(self.flow(document, renewed: renewed, source: source, stale: false)) } catch {
            note(.failed, "cannot adopt revision \(document.revision): \(error)")
            return error
        }
        guard isCurrent(generation) else { return nil }
        let current = stage.presented ?? stage.prepared
        switch FreshnessRenewal.afterAuthorisation(somethingPrepared: current != nil, sameContent: current?.isSameContent(as: flow) ?? false) {
        case .none:
            // Nothing prepared: the stored state is current, and the next prepare() uses it.
            return nil
        case .renewInPlace:
            // The same revision was confirmed: what is prepared and shown takes its standing.
            await perform(stage.renewed(flow))
        case .adopt:
            await adopt(flow)
        }
        if let due = nextRefreshDate() { await scheduleRefresh(at: due) }
        return nil
    }

    /// The origin confirmed the journey is gone and the policy keeps it in service: what is
    /// prepared and shown stays, flagged removed and no longer fresh.
    private func markRemovedIfKept() async {
        let record: ScopeRecord
        do { record = try store.record(configuration.scope) } catch {
            note(.failed, "cannot read the host state: \(error)")
            return
        }
        guard record.isRemovedButKept else { return }
        await perform(stage.flaggedRemoved())
    }

    /// A new revision: staged while a presentation is open, otherwise prepared now.
    private func adopt(_ flow: PreparedJourney) async {
        let generation = lifecycle.generation
        let next: PreparedContent
        do { next = try await makePrepared(flow) } catch {
            note(.failed, "cannot prepare revision \(flow.revision): \(error)")
            return
        }
        // The lease is taken off the actor: the configuration may have changed meanwhile.
        guard isCurrent(generation) else {
            next.lease.release()
            return
        }
        switch StagingRule.placement(presentationOpen: stage.isPresented) {
        case .stage:
            await perform(stage.staged(next))
            note(.staged, "revision \(flow.revision) waits until the open presentation is dismissed")
        case .prepareNow:
            await perform(stage.prepared(next))
            if next.journey.preloaded {
                await loadHiddenRecordingFailure()
            } else {
                setReadiness(.ready(next.journey))
            }
        }
    }
}
