import Foundation

/// The fallback chain: fresh cache, then a live fetch within the
/// fetch deadline, then the stale cache, then the embedded default.
///
/// Two pure decisions over values; ``JourneyHost`` performs what they return. Denied content
/// is never part of the chain: a denial ends it. A forced refresh (``JourneyHost/prepare(forceRefresh:)``,
/// behind a pull to refresh) skips the first link: it needs a live answer, and without
/// one it falls back along the rest of the chain (``fallbackReason(forced:failure:)``).
enum FallbackChain {
    /// The first link: what to do before asking the origin.
    enum Opening: Sendable, Equatable {
        /// The stored content is fresh: show it from the cache, refreshing it in the
        /// background when it is in the window's second half.
        case serveFresh(refreshInBackground: Bool)
        /// A backoff is on and nothing is asking the origin: do not ask before this time.
        case backingOff(until: Date)
        /// Ask the origin, within the fetch deadline.
        case askOrigin
    }

    /// The first link.
    /// - Parameters:
    ///   - freshness: the stored document's freshness for a new presentation; nil without
    ///     one (or without its renewal time).
    ///   - complete: whether its bundle is complete in the cache.
    ///   - removedButKept: whether it is kept in service after a confirmed 404 (never fresh).
    ///   - notBefore: when the backoff ends, if one is on.
    ///   - now: the time.
    ///   - fetchRunning: a request for the scope is already on its way (it is shared).
    ///   - forceRefresh: the caller wants a live answer: fresh content is not served from the
    ///     cache (a backoff still holds: only ``JourneyHost/refresh(force:)`` asks during one).
    static func opening(
        freshness: FreshnessPolicy.Decision?, complete: Bool, removedButKept: Bool, notBefore: Date?, now: Date,
        fetchRunning: Bool, forceRefresh: Bool = false
    ) -> Opening {
        if !forceRefresh, let freshness, freshness != .requiresFetch, complete, !removedButKept {
            return .serveFresh(refreshInBackground: freshness == .presentAndRefresh)
        }
        if let notBefore, now < notBefore, !fetchRunning { return .backingOff(until: notBefore) }
        return .askOrigin
    }

    /// The links after a live fetch that failed, timed out or was not made (a backoff); an
    /// authorised answer is served, a denial ends the chain.
    enum Rest: Sendable, Equatable {
        /// Show the stored content, flagged stale.
        case serveStale
        /// Show the embedded default when there is one, else fail with the live link's error.
        case embeddedOrFail
    }

    /// The links after a live fetch that failed, timed out or was not made.
    /// - Parameters:
    ///   - staleComplete: the stored state (read again after asking) has a document whose
    ///     bundle is complete in the cache.
    ///   - staleAllowed: the startup policy and the stale-content policy let the stale cache
    ///     serve
    ///     (``StartupRule/servesStale(policy:authorisedThisLaunch:staleContent:age:)``).
    static func rest(staleComplete: Bool, staleAllowed: Bool = true) -> Rest {
        staleComplete && staleAllowed ? .serveStale : .embeddedOrFail
    }

    /// Why a forced refresh is served from the rest of the chain: nil when it was not forced
    /// (the timeline says why), else the live link's failure, for the caller who asked for a
    /// live answer and did not get one.
    /// - Parameters:
    ///   - forced: the resolution was a forced refresh.
    ///   - failure: why the live link gave no answer.
    static func fallbackReason(forced: Bool, failure: String) -> String? {
        forced ? "a forced refresh got no live answer (\(failure)); the rest of the fallback chain serves it" : nil
    }
}
