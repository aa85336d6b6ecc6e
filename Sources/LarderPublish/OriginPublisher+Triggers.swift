import Foundation
import LarderFormat

/// Which events present a journey, as `larder publish … --journey <id> --trigger <event>
/// --reentry <policy>` asks.
public struct TriggerPublication: Sendable {
    /// The journey the events present.
    public var journey: String
    /// The events (`EventName`); the journey's triggers become exactly these. An event that
    /// presented another journey presents this one from now on.
    public var events: [String]
    public var reentry: TriggerDocument.Reentry
    public var now: Date
    /// Signs the triggers document when set; publishing the same triggers again renews the
    /// signature and its expiry, keeping the revision.
    public var signingKey: SigningKey?
    /// How long after signing a device accepts the document (seconds; 7 days by default).
    public var validity: Int64

    /// - Parameters:
    ///   - journey: the journey the events present.
    ///   - events: event names; the journey's triggers become exactly these.
    ///   - reentry: how often one person may see it (every time by default).
    ///   - now: the publish time (the document's `published`).
    ///   - signingKey: signs the document when set.
    ///   - validity: seconds a device accepts the signed document.
    public init(
        journey: String, events: [String], reentry: TriggerDocument.Reentry = .always, now: Date = Date(), signingKey: SigningKey? = nil,
        validity: Int64 = 7 * 86_400
    ) {
        self.journey = journey
        self.events = events
        self.reentry = reentry
        self.now = now
        self.signingKey = signingKey
        self.validity = validity
    }
}

/// What publishing triggers did.
public struct TriggerPublishReport: Sendable {
    /// The triggers document now published.
    public var document: TriggerDocument
    /// Events that presented another journey before: the event and that journey.
    public var moved: [(event: String, from: String)]
    /// Whether the origin's file changed (false: it already said this).
    public var changed: Bool
}

extension OriginPublisher {
    /// Points events at a journey in the origin's triggers document (`triggers.json`, beside
    /// the journeys': mutable, no-cache, revalidated with ETags, guarded by a known key): the
    /// journey's triggers become exactly the publication's, in a new revision when that changes
    /// anything (signed when the publication has a key; the same triggers with a key renew the
    /// signature only); read and replaced only if unchanged since read, retried when another
    /// publisher came first, holding the target's exclusion.
    /// - Throws: ``PublishError`` with ``PublishError/Code/format`` for an event that is not
    ///   an event name, a journey id that is not one, a damaged document on the target, or a
    ///   revision that cannot follow; ``PublishError/Code/contended`` after every retry; the
    ///   target's own errors.
    public static func publishTriggers(_ publication: TriggerPublication, target: some PublishTarget) throws(PublishError) -> TriggerPublishReport {
        guard JourneyPublication.isValidJourneyID(publication.journey) else {
            throw PublishError(.invalidIdentifier, "journey id '\(publication.journey)' may use only letters, digits, '_', '-' and '.', and may not end in '.history'")
        }
        if let bad = publication.events.first(where: { !EventName.isValid($0) }) {
            throw PublishError(.format, "--trigger: " + EventName.rule(for: bad))
        }
        if case .every(let seconds) = publication.reentry, seconds < 1 {
            throw PublishError(.format, "a reentry interval is at least one second")
        }
        let path = TriggerDocument.path
        return try target.changingMutableFiles { () throws(PublishError) -> TriggerPublishReport in
            for attempt in 0..<journeyAttempts {
                pauseAfterLosingRace(attempt)
                var previous: TriggerDocument?
                var validator: String?
                if let stored = try target.read(path, limit: TriggerDocument.maximumBytes) {
                    do throws(FormatError) { previous = try TriggerDocument(decoding: stored.bytes) } catch {
                        throw PublishError(.format, "the triggers document is damaged: \(error.detail); restore or remove it", path: target.name + "/" + path, cause: error)
                    }
                    validator = stored.validator
                }
                let (triggers, moved) = Self.triggers(publication, replacing: previous?.triggers ?? [])
                var next: TriggerDocument
                if let previous, previous.triggers == triggers {
                    guard let key = publication.signingKey else { return TriggerPublishReport(document: previous, moved: [], changed: false) }
                    next = previous
                    next.expires = iso(publication.now.addingTimeInterval(TimeInterval(publication.validity)))
                    try sign(&next, with: key)
                    guard next != previous else { return TriggerPublishReport(document: previous, moved: [], changed: false) }
                } else {
                    let (revision, overflow) = (previous?.revision ?? 0).addingReportingOverflow(1)
                    guard !overflow else {
                        throw PublishError(.format, "the triggers document is at revision \(Int64.max): no revision can follow it", path: target.name + "/" + path)
                    }
                    next = TriggerDocument(revision: revision, published: iso(publication.now), triggers: triggers)
                    if let key = publication.signingKey {
                        next.expires = iso(publication.now.addingTimeInterval(TimeInterval(publication.validity)))
                        try sign(&next, with: key)
                    }
                }
                if try target.replace(path, with: next.canonicalBytes, content: .document, expecting: validator) {
                    return TriggerPublishReport(document: next, moved: moved, changed: true)
                }
            }
            throw PublishError(.contended, "another publisher changed the triggers before each of \(journeyAttempts) writes; try again", path: target.name + "/" + path)
        }
    }

    /// The triggers after the publication: every other journey's, minus the publication's
    /// events, plus the publication's; and which events moved from another journey.
    static func triggers(_ publication: TriggerPublication, replacing current: [TriggerDocument.Trigger])
        -> (triggers: [TriggerDocument.Trigger], moved: [(event: String, from: String)])
    {
        let events = Set(publication.events)
        let moved = current.filter { events.contains($0.event) && $0.journey != publication.journey }.map { (event: $0.event, from: $0.journey) }
        let kept = current.filter { $0.journey != publication.journey && !events.contains($0.event) }
        let added = publication.events.map { TriggerDocument.Trigger(event: $0, journey: publication.journey, reentry: publication.reentry) }
        return (TriggerDocument(revision: 1, published: "", triggers: kept + added).triggers, moved)
    }

    private static func sign(_ document: inout TriggerDocument, with key: SigningKey) throws(PublishError) {
        do { try document.sign(with: key) } catch { throw PublishError(.format, "cannot sign the triggers document: \(error.detail)", cause: error) }
    }
}
