import Foundation
import LarderCache
import LarderFormat

extension JourneyHost {
    /// Tells the host whether the app is in the foreground. Refreshes run only in the
    /// foreground; coming back (a resume) refreshes at once when one is due, after any backoff.
    public func setForeground(_ isForeground: Bool) async {
        guard !disposed, isForeground != foreground else { return }
        foreground = isForeground
        guard isForeground else {
            let due = refreshDue
            cancelRefresh()
            refreshDue = due
            return
        }
        guard let due = refreshDue ?? nextRefreshDate() else { return }
        refreshDue = nil
        if due <= clock.now {
            await refreshNow(generation: generation)
        } else {
            scheduleRefresh(at: due)
        }
    }

    /// Asks the origin now (an explicit retry), subject to backoff and `Retry-After`.
    /// Prepared content follows a new revision; an open presentation keeps what it shows and
    /// the new revision is staged for after dismissal.
    public func refresh() async {
        guard !disposed else { return }
        await refreshNow(generation: generation, evenInBackground: true)
    }

    /// Content in the second half of its window was just used: refresh it now, without
    /// waiting (shared with any request already on its way).
    func refreshInBackground() {
        cancelRefresh()
        let generation = generation
        refreshTask = Task { [weak self] in await self?.refreshNow(generation: generation, evenInBackground: true) }
    }

    /// Keeps one refresh scheduled: the earliest asked for.
    func scheduleRefresh(at date: Date) {
        guard !disposed else { return }
        guard foreground else {
            refreshDue = min(refreshDue ?? date, date)
            return
        }
        if refreshTask != nil, let due = refreshDue, due <= date { return }
        refreshTask?.cancel()
        refreshDue = date
        let generation = generation
        let clock = clock
        refreshTask = Task { [weak self] in
            do { try await clock.sleep(until: date) } catch { return }
            await self?.refreshNow(generation: generation)
        }
        note(.refreshScheduled, "refresh at \(Self.iso(date))")
    }

    func cancelRefresh() {
        refreshTask?.cancel()
        refreshTask = nil
        refreshDue = nil
    }

    /// When the shown or prepared content next needs a refresh.
    private func nextRefreshDate() -> Date? {
        guard let current = presented ?? prepared, let document = current.document, let renewed = current.journey.renewed else {
            return nil
        }
        return refreshDate(of: document, renewed: renewed)
    }

    func refreshNow(generation: Int, evenInBackground: Bool = false) async {
        refreshTask = nil
        refreshDue = nil
        guard generation == self.generation, !disposed, foreground || evenInBackground else { return }
        let outcome = await live(configuration, generation: generation)
        guard generation == self.generation, !disposed else { return }
        guard case .authorised(let document, let renewed, let source) = outcome else {
            // Failures neither renew freshness nor schedule a retry: the next present, resume or
            // explicit retry may try again after the backoff.
            return
        }
        let flow: ResolvedFlow
        do { flow = try self.flow(document, renewed: renewed, source: source, stale: false) } catch {
            note(.failed, "\(error)")
            return
        }
        if let current = presented ?? prepared, current.journey.bundle == flow.bundle,
            current.journey.revision == document.revision
        {
            renew(with: flow)
        } else {
            await adopt(flow)
        }
        if let due = nextRefreshDate() { scheduleRefresh(at: due) }
    }

    /// The same revision was confirmed: renew the freshness of what is prepared and shown.
    private func renew(with flow: ResolvedFlow) {
        func renewed(_ current: Prepared?) -> Prepared? {
            guard var current, current.journey.bundle == flow.bundle else { return current }
            current.journey.renewed = flow.renewed
            current.journey.source = flow.source
            current.journey.stale = false
            current.document = flow.document
            return current
        }
        prepared = renewed(prepared)
        presented = renewed(presented)
        if case .hidden = presentation, let prepared, prepared.isReady {
            setReadiness(.ready(prepared.journey))
        }
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
        if case .presented = presentation {
            if let old = staged { staged = nil; retire(old) }
            staged = next
            note(.staged, "revision \(flow.revision) waits until the open presentation is dismissed")
            return
        }
        if let old = prepared { prepared = nil; retire(old) }
        prepared = next
        if next.journey.preloaded {
            await loadHiddenRecordingFailure()
        } else {
            setReadiness(.ready(next.journey))
        }
    }
}
