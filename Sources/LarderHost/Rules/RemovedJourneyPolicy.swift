/// What a host does when the origin confirms a journey is gone (a second consecutive 404).
///
/// Apps differ: discarding the content follows the server at once; keeping on rendering a
/// flow deleted on the server means a mistaken unpublish does not empty every device. Either way ``JourneyStatus`` records what happened and when.
public enum RemovedJourneyPolicy: String, Sendable, Equatable, CaseIterable {
    /// Discard the scope's content, as for a 401 or 403 (the default).
    case discard
    /// Keep serving the cached revision, flagged ``PreparedJourney/removed``, until the
    /// origin serves the journey again or denies the key; the origin is asked again after the
    /// usual backoff.
    case keepServing = "keep"
}
