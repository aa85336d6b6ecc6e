import Foundation
import LarderFormat

extension JourneyHost {
    /// Queues an event of the app's own (a paywall button outside the flow, a
    /// purchase the store confirmed) with the captured answers: the same queue, order,
    /// attribution and delivery. It belongs to the open presentation, or, when none is open,
    /// to the prepared revision with no session.
    /// - Parameters:
    ///   - name: lowercase ASCII letters, digits, `_` and `:`, starting with a letter, at most
    ///     100 characters (`paywall:closed`, `trial_started`).
    ///   - properties: sent in the event's body beside its name.
    /// - Returns: the event's id, or nil when capture is off (``JourneyConfiguration/capture``).
    /// - Throws: ``HostError/Code/invalidEventName`` naming a name that breaks the rule;
    ///   ``HostError/Code/unavailable`` when nothing is prepared or presented to attribute it
    ///   to; ``HostError/Code/disposed`` after ``dispose()``.
    @discardableResult
    public func track(_ name: String, properties: [String: String] = [:]) throws(HostError) -> String? {
        try checkUsable()
        guard Self.isValidEventName(name) else {
            throw HostError(
                .invalidEventName, "'\(name)' is not an event name: use lowercase letters, digits, '_' and ':', starting with a letter (at most 100)")
        }
        guard let settings = configuration.capture else { return nil }
        let session: PresentationSession
        let context = captureContext(settings)
        if case .presented(let open) = presentation {
            session = open
        } else if let prepared = stage.prepared?.journey {
            var unpresented = PresentationSession(id: "", journey: prepared.journey, revision: prepared.revision, bundle: prepared.bundle)
            unpresented.assignment = prepared.assignment
            session = unpresented
        } else {
            throw HostError(.unavailable, "nothing prepared or presented to attribute event '\(name)' to: prepare the journey first")
        }
        let id = "track/" + UUID().uuidString.lowercased()
        let body = JSONValue.object([
            "type": .string("track"), "name": .string(name), "properties": .object(properties.mapValues(JSONValue.string)),
        ])
        enqueue(id: id, body: body.canonicalBytes, session: session, context: context)
        return id
    }

    /// `^[a-z][a-z0-9_:]*$`, at most 100 characters (``EventName``).
    static func isValidEventName(_ name: String) -> Bool { EventName.isValid(name) }
}
