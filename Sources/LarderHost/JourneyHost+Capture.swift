import Foundation
import LarderFormat

extension JourneyHost {
    /// Delivers queued captures in order (a bounded number of batches); events that could not
    /// be delivered stay queued. Delivery needs no fresh authorisation.
    @discardableResult
    public func deliverCapturedEvents() async -> CaptureDelivery {
        let sink = captureSink ?? HTTPCaptureSink(
            endpoint: configuration.capture?.endpoint ?? configuration.origin.appendingPathComponent("capture"),
            publishableKey: configuration.publishableKey, transport: transport)
        let queue: CaptureQueue
        do { queue = try captureQueue() } catch {
            note(.failed, "cannot open the capture queue: \(error)")
            return CaptureDelivery(delivered: 0, remaining: 0, error: error)
        }
        let delivery = await queue.deliver(to: sink, batchSize: configuration.capture?.batchSize ?? 50)
        for refusal in delivery.refused { note(.captureRefused, refusal.reason.description) }
        if delivery.delivered > 0 { note(.delivered, "\(delivery.delivered) captured events delivered, \(delivery.remaining) queued") }
        return delivery
    }

    /// Events still waiting for delivery, oldest first.
    public func pendingCaptures() throws(HostError) -> [CaptureEvent] {
        try captureQueue().pending()
    }

    func receive(_ message: BridgeMessage) async {
        guard !disposed else { return }
        switch message {
        case .capture(let event, let body):
            capture(event, body: body)
        case .dismiss:
            appMessages.yield(message)
            await dismiss()
        default:
            appMessages.yield(message)
        }
    }

    /// Queues an answer from the content, attributed to the open presentation. Content that
    /// is only prepared (hidden) records nothing.
    func capture(_ id: String, body: [UInt8]) {
        guard let settings = configuration.capture else { return }
        guard case .presented(let session) = presentation else {
            note(.captureDropped, "event \(id) arrived while hidden: not recorded")
            return
        }
        enqueue(id: id, body: body, session: session, context: settings.context.merging(sessionContext) { $1 })
    }

    /// The presentation-started event: recorded when content becomes visible, never while
    /// hidden.
    func recordPresentation(_ session: PresentationSession) {
        guard let settings = configuration.capture else { return }
        enqueue(
            id: session.id + "/presented", body: Array(#"{"type":"presented"}"#.utf8), session: session,
            context: settings.context.merging(sessionContext) { $1 })
    }

    private func enqueue(id: String, body: [UInt8], session: PresentationSession, context: [String: String]) {
        do {
            let queue = try captureQueue()
            let visitor = try configuration.identity?.externalID ?? queue.visitor()
            let event = CaptureEvent(
                id: id, visitor: visitor, session: session.id, journey: session.journey, revision: session.revision,
                bundle: session.bundle, context: context, body: body, created: clock.now)
            if try queue.enqueue(event) {
                note(.captured, "event \(id) for session \(session.id), revision \(session.revision)")
            } else {
                note(.captureDropped, "event \(id) was already captured")
            }
        } catch {
            note(.failed, "cannot queue event \(id): \(error)")
        }
    }

    func scheduleDelivery() {
        guard !disposed else { return }
        Task { [weak self] in await self?.deliverCapturedEvents() }
    }
}
