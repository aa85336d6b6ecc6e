import Foundation
import LarderCache
import LarderFormat

extension JourneyHost {
    /// Tells the host whether the app is in the foreground. Refreshes run only in the
    /// foreground; coming back (a resume) refreshes at once when one is due, after any backoff,
    /// and delivers queued captures (``CaptureDrain``).
    public func setForeground(_ isForeground: Bool) async {
        guard !disposed, isForeground != origin.schedule.foreground else { return }
        origin.schedule.foreground = isForeground
        if isForeground { origin.schedule.returnedToForeground = clock.now }
        guard isForeground else {
            let due = origin.schedule.due
            cancelRefresh()
            origin.schedule.due = due
            return
        }
        drainCaptures(.foregrounded)
        guard let due = origin.schedule.due ?? nextRefreshDate() else { return }
        origin.schedule.due = nil
        if due <= clock.now {
            await refreshNow(generation: generation)
        } else {
            scheduleRefresh(at: due)
        }
    }

    /// Asks the origin now (an explicit retry), subject to backoff and `Retry-After` unless
    /// `force`d. Prepared content follows a new revision; an open presentation keeps what it
    /// shows and the new revision is staged for after dismissal. With nothing prepared, only
    /// the stored state is renewed: the next ``prepare()`` finds it fresh.
    /// - Parameter force: ask even during a backoff or `Retry-After`: for a user's explicit
    ///   action only (a pull to refresh, a retry button); the host never forces by itself.
    ///   The request still carries `If-None-Match`, and a failure sets the backoff as usual.
    /// - Returns: why the refresh failed (the origin could not be asked or refused, a trusted
    ///   key refused the document, a backoff is on), nil when it succeeded: a caller that
    ///   prepares next, and meets the backoff this failure set, can report the cause instead.
    @discardableResult
    public func refresh(force: Bool = false) async -> HostError? {
        guard !disposed else { return HostError(.disposed, "the host was disposed") }
        if force { note(.forced, "an explicit refresh: asking the origin whatever the backoff") }
        return await refreshNow(generation: generation, evenInBackground: true, force: force)
    }

    /// Content in the second half of its window was just used: refresh it now, without
    /// waiting (shared with any request already on its way).
    func refreshInBackground() {
        cancelRefresh()
        let generation = generation
        origin.schedule.task = Task { [weak self] in _ = await self?.refreshNow(generation: generation, evenInBackground: true) }
    }

    /// Keeps one refresh scheduled: the earliest asked for.
    func scheduleRefresh(at date: Date) {
        guard !disposed else { return }
        guard origin.schedule.foreground else {
            origin.schedule.due = min(origin.schedule.due ?? date, date)
            return
        }
        if origin.schedule.task != nil, let due = origin.schedule.due, due <= date { return }
        origin.schedule.task?.cancel()
        origin.schedule.due = date
        let generation = generation
        let clock = clock
        origin.schedule.task = Task { [weak self] in
            do { try await clock.sleep(until: date) } catch { return }
            _ = await self?.refreshNow(generation: generation)
        }
        note(.refreshScheduled, "refresh at \(Self.iso(date))")
    }

    func cancelRefresh() {
        origin.schedule.task?.cancel()
        origin.schedule.task = nil
        origin.schedule.due = nil
    }

    /// When the shown or prepared content next needs a refresh.
    private func nextRefreshDate() -> Date? {
        guard let current = stage.presented ?? stage.prepared, let document = current.document, let renewed = current.journey.renewed else {
            return nil
        }
        return refreshDate(of: document, renewed: renewed)
    }

    /// Asks the origin and applies the answer; returns why that failed, nil when it did not
    /// (or did not ask: in the background, or for an older configuration).
    @discardableResult
    func refreshNow(generation: Int, evenInBackground: Bool = false, force: Bool = false) async -> HostError? {
        origin.schedule.task = nil
        origin.schedule.due = nil
        guard generation == self.generation, !disposed, origin.schedule.foreground || evenInBackground else { return nil }
        let outcome = await live(configuration, generation: generation, force: force)
        guard generation == self.generation, !disposed else { return nil }
        let document: JourneyDocument, renewed: Date, source: ContentSource
        switch outcome {
        case .authorised(let authorised, let when, let from):
            (document, renewed, source) = (authorised, when, from)
        case .denied(let status):
            return HostError(.denied, "the origin denied journey '\(configuration.journeyID)'", status: status)
        case .failed(let error):
            // Failures neither renew freshness nor schedule a retry: the next present, resume or
            // explicit retry may try again after the backoff.
            markRemovedIfKept()
            return error
        }
        let flow: ResolvedFlow
        do { flow = try await gated(self.flow(document, renewed: renewed, source: source, stale: false)) } catch {
            note(.failed, "cannot adopt revision \(document.revision): \(error)")
            return error
        }
        guard generation == self.generation, !disposed else { return nil }
        let current = stage.presented ?? stage.prepared
        switch FreshnessRenewal.afterAuthorisation(
            somethingPrepared: current != nil,
            sameContent: current.map { $0.journey.bundle == flow.bundle && $0.journey.revision == flow.revision } ?? false)
        {
        case .none:
            // Nothing prepared: the stored state is current, and the next prepare() uses it.
            return nil
        case .renewInPlace:
            renew(with: flow)
        case .adopt:
            await adopt(flow)
        }
        if let due = nextRefreshDate() { scheduleRefresh(at: due) }
        return nil
    }

    /// The same revision was confirmed: renew the freshness of what is prepared and shown.
    private func renew(with flow: ResolvedFlow) {
        func renewed(_ current: Prepared?) -> Prepared? {
            guard var current, current.journey.bundle == flow.bundle else { return current }
            current.journey.renewed = flow.renewed
            current.journey.source = flow.source
            current.journey.stale = false
            current.journey.removed = false
            current.document = flow.document
            return current
        }
        stage.prepared = renewed(stage.prepared)
        stage.presented = renewed(stage.presented)
        if case .hidden = presentation, let prepared = stage.prepared, prepared.isReady {
            setReadiness(.ready(prepared.journey))
        }
    }

    /// The origin confirmed the journey is gone and the policy keeps it in service: what is
    /// prepared and shown stays, flagged removed and no longer fresh.
    private func markRemovedIfKept() {
        let record: ScopeRecord
        do { record = try store.record(configuration.scope) } catch {
            note(.failed, "cannot read the host state: \(error)")
            return
        }
        guard record.isRemovedButKept else { return }
        func flagged(_ current: Prepared?) -> Prepared? {
            guard var current else { return nil }
            current.journey.removed = true
            current.journey.stale = true
            current.document = nil
            return current
        }
        stage.prepared = flagged(stage.prepared)
        stage.presented = flagged(stage.presented)
        if case .hidden = presentation, let prepared = stage.prepared, prepared.isReady { setReadiness(.ready(prepared.journey)) }
    }

    /// A new revision: staged while a presentation is open, otherwise prepared now.
    private func adopt(_ flow: ResolvedFlow) async {
        let generation = generation
        let next: Prepared
        do { next = try await makePrepared(flow) } catch {
            note(.failed, "cannot prepare revision \(flow.revision): \(error)")
            return
        }
        // The lease is taken off the actor: the configuration may have changed meanwhile.
        guard generation == self.generation, !disposed else {
            next.content.lease.release()
            return
        }
        switch StagingRule.placement(presentationOpen: stage.isPresented) {
        case .stage:
            stage.stage(next)
            note(.staged, "revision \(flow.revision) waits until the open presentation is dismissed")
        case .prepareNow:
            stage.replacePrepared(with: next)
            if next.journey.preloaded {
                await loadHiddenRecordingFailure()
            } else {
                setReadiness(.ready(next.journey))
            }
        }
    }
}
