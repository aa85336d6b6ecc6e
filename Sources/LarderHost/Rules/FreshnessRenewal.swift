import Foundation

/// Which answers renew freshness: a 200 authorises a new
/// document and a 304 the stored one, both renewed now; a failure, a backoff, a denial or an
/// unconfirmed 404 renews nothing and schedules no retry: the next present, resume or explicit
/// retry asks again after the backoff.
///
/// Pure decisions over values; ``JourneyHost`` performs what they return: a 200 stores a new
/// record renewed now, a 304 stores ``revalidated(_:now:)``, every other answer goes through
/// ``DenialRule`` or ``Backoff`` and leaves the renewal time as it was.
enum FreshnessRenewal {
    /// The record a 304 leaves: renewed at `now`, with the failures, the backoff, the 404
    /// count and any earlier denial or removal forgotten.
    static func revalidated(_ record: ScopeRecord, now: Date) -> ScopeRecord {
        var record = record
        record.renewed = now
        record.failures = 0
        record.notBefore = nil
        record.notFound = 0
        record.deniedStatus = nil
        record.deniedAt = nil
        record.keptAfterRemoval = false
        return record
    }

    /// What a refresh does with the prepared and shown content.
    enum Action: Sendable, Equatable {
        /// The same revision was confirmed: renew what is prepared and shown in place.
        case renewInPlace
        /// A new revision: adopt it (``StagingRule`` says where).
        case adopt
        /// Nothing is prepared or shown: the stored state alone was renewed.
        case none
    }

    /// What a refresh does after the origin authorised content.
    /// - Parameters:
    ///   - somethingPrepared: content is prepared or shown (else the stored state alone is
    ///     renewed: the next ``JourneyHost/prepare()`` finds it fresh).
    ///   - sameContent: it is the revision and bundle already prepared or shown.
    static func afterAuthorisation(somethingPrepared: Bool, sameContent: Bool) -> Action {
        guard somethingPrepared else { return .none }
        return sameContent ? .renewInPlace : .adopt
    }
}
