import Foundation
import LarderFormat

extension JourneyHost {
    /// Delivers queued captures in order (a bounded number of batches); events that could not
    /// be delivered stay queued. Delivery needs no fresh authorisation. A drain the host began
    /// by itself is waited out first.
    @discardableResult
    public func deliverCapturedEvents() async -> CaptureDelivery {
        await captures.drainTask?.value
        return await deliverQueued(maxBatches: 100)
    }

    /// Delivers at most `maxBatches` batches of queued captures, in order.
    private func deliverQueued(maxBatches: Int) async -> CaptureDelivery {
        let sink = captures.sink(for: configuration, transport: origin.transport)
        let queue: CaptureQueue
        do { queue = try captureQueue() } catch {
            note(.failed, "cannot open the capture queue: \(error)")
            return CaptureDelivery(delivered: 0, remaining: 0, error: error)
        }
        let delivery = await queue.deliver(to: sink, batchSize: configuration.capture?.batchSize ?? 50, maxBatches: maxBatches)
        for refusal in delivery.refused { noteContent(.captureRefused, refusal.reason.description) }
        if delivery.delivered > 0 { note(.delivered, "\(delivery.delivered) captured events delivered, \(delivery.remaining) queued") }
        return delivery
    }

    /// The drain's state now (for tests and diagnostics).
    func drainState() -> CaptureDrain { captures.drain }

    /// Events still waiting for delivery, oldest first.
    public func pendingCaptures() throws(HostError) -> [CaptureEvent] {
        try captureQueue().pending()
    }

    func receive(_ message: BridgeMessage) async {
        guard !lifecycle.isDisposed else { return }
        switch message {
        case .capture(let event, let body):
            capture(event, body: body)
        case .dismiss:
            observation.deliver(message)
            await close(.contentDismissed)
        case .complete:
            observation.deliver(message)
            await close(.contentCompleted)
        default:
            // What it means for the open session's outcome and screen.
            await perform(stage.contentSent(message))
            observation.deliver(message)
        }
    }

    /// Queues an answer from the content, attributed to the open presentation. Content that
    /// is only prepared (hidden) records nothing.
    func capture(_ id: String, body: [UInt8]) {
        guard let settings = configuration.capture else { return }
        guard case .presented(let session) = presentation else {
            noteContent(.captureDropped, "event \(id) arrived while hidden: not recorded")
            return
        }
        enqueue(id: id, body: body, session: session, context: captureContext(settings))
    }

    /// The presentation-started event: recorded when content becomes visible, never while
    /// hidden.
    func recordPresentation(_ session: PresentationSession) {
        guard let settings = configuration.capture else { return }
        enqueue(
            id: session.id + "/presented", body: Array(#"{"type":"presented"}"#.utf8), session: session,
            context: captureContext(settings))
    }

    /// The context an event gets when it is created: the capture settings', then the open
    /// session's (the host-wide context under its own), else the host-wide context.
    func captureContext(_ settings: CaptureSettings) -> [String: JSONValue] {
        let session = stage.isPresented ? stage.sessionContext : configuration.context
        return settings.context.mapValues(JSONValue.string).merging(session) { $1 }
    }

    /// Queues an event: at once when no other connection is writing the capture queue (the
    /// usual case, so the timeline says what happened before the caller goes on); otherwise
    /// off the actor once the lock is free, behind the captures already waiting, while the
    /// presentation goes on.
    func enqueue(id: String, body: [UInt8], session: PresentationSession, context: [String: JSONValue]) {
        let queue: CaptureQueue
        let event: CaptureEvent
        do {
            queue = try captureQueue()
            let visitor = try configuration.identity?.externalID ?? queue.visitor()
            var made = CaptureEvent(
                id: id, visitor: visitor, session: session.id, journey: session.journey, revision: session.revision,
                bundle: session.bundle, context: [:], body: body, created: clock.now)
            made.contextValues = context
            made.assignment = session.assignment
            event = made
            if !captures.isBacklogged, let inserted = try queue.enqueueWithoutWaiting(event) {
                noteQueued(event, inserted: .success(inserted))
                return
            }
        } catch {
            noteContent(.failed, "cannot queue event \(id): \(error)")
            return
        }
        let previous = captures.backlog
        captures.joinBacklog(Task {
            await previous?.value
            let inserted: Result<Bool, HostError>
            do throws(HostError) {
                inserted = .success(try await Self.retryingOffPool { () throws(HostError) -> Bool? in try queue.enqueueWithoutWaiting(event) })
            } catch {
                inserted = .failure(error)
            }
            captures.leftBacklog()
            noteQueued(event, inserted: inserted)
        })
    }

    private func noteQueued(_ event: CaptureEvent, inserted: Result<Bool, HostError>) {
        switch inserted {
        case .success(true): noteContent(.captured, "event \(event.id) for session \(event.session), revision \(event.revision)")
        case .success(false): noteContent(.captureDropped, "event \(event.id) was already captured")
        case .failure(let error): noteContent(.failed, "cannot queue event \(event.id): \(error)")
        }
    }

    /// Ends the bridge's counting period (a presentation begins or ends: each has its own rate
    /// limit) and notes what the period refused, if anything, in one entry.
    /// - Parameter session: the session the period was, nil when it was while hidden.
    func endBridgePeriod(of session: PresentationSession?) {
        let counts = driver.bridge.beginPeriod()
        guard counts.refused > 0 else { return }
        let period = session.map { "session \($0.id)" } ?? "while hidden"
        note(.bridgeRefused, "\(period): \(counts.refusalSummary(driver.bridge.limits))")
    }

    /// Performs ``CaptureDrain``'s decision on a trigger: a bounded run off the caller's path.
    func drainCaptures(_ trigger: CaptureDrain.Trigger) {
        guard !lifecycle.isDisposed else { return }
        performDrain(captures.drain { $0.trigger(trigger) })
    }

    /// The connectivity signal said the network is `available` (or not): on its return, queued
    /// captures are delivered (``CaptureDrain``).
    func connectivityChanged(_ available: Bool) {
        guard !lifecycle.isDisposed else { return }
        let now = clock.now
        performDrain(captures.drain { $0.networkChanged(available: available, now: now) })
    }

    /// Listens to the connectivity signal's `updates` for the host's life
    /// (``connectivityChanged(_:)``); nothing once disposed.
    func listen(to updates: AsyncStream<Bool>) {
        guard !lifecycle.isDisposed else { return }
        captures.listen(Task { [weak self] in
            for await available in updates {
                guard let self else { return }
                await self.connectivityChanged(available)
            }
        })
    }

    /// Performs what ``CaptureDrain`` returned: the one place its actions are performed.
    private func performDrain(_ action: CaptureDrain.Action) {
        switch action {
        case .none:
            break
        case .deliver(let maxBatches):
            captures.keepDrainTask(Task { [weak self] in
                guard let self else { return }
                await self.runDrain(maxBatches: maxBatches)
            })
        case .wait(let date):
            let clock = clock
            captures.keepRetryTask(Task { [weak self] in
                do { try await clock.sleep(until: date) } catch { return }
                await self?.retryDrain()
            })
        }
    }

    private func retryDrain() {
        guard !lifecycle.isDisposed else { return }
        performDrain(captures.drain { $0.retryDue() })
    }

    private func runDrain(maxBatches: Int) async {
        let delivery = await deliverQueued(maxBatches: maxBatches)
        let now = clock.now
        performDrain(captures.drain { $0.finished(failed: delivery.error != nil && delivery.remaining > 0, now: now) })
    }
}
