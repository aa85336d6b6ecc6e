/// What a new launch shows before the origin has answered in it.
///
/// Apps differ: some require fresh authorisation for new presentations after a restart;
/// others render the cached copy at once and revalidate it in the background. Once the origin has authorised the
/// scope in this launch, the freshness window decides as usual whatever the policy.
public enum StartupPolicy: String, Sendable, Equatable, CaseIterable {
    /// Ask the origin first, within ``JourneyConfiguration/fetchDeadline``; when it cannot
    /// answer, serve the cached revision flagged stale (the default).
    case askOriginFirst = "ask-origin-first"
    /// Show the cached revision at once and revalidate it behind it, at every age the
    /// stale-content policy allows (``StaleContentPolicy``: by default any), before and after the
    /// origin answered in this launch (its bundle complete, its document still trusted; a
    /// denial or a signed expiry stops it): a new revision replaces it for the next
    /// presentation, never the one open.
    case cacheFirst = "cache-first"
    /// No new presentation of downloaded content without fresh authorisation in this launch:
    /// when the origin cannot answer the cached revision is not shown (the embedded default,
    /// which the app ships, still is), and the live link's error is thrown.
    case requireAuthorisation = "require-authorisation"
}

/// The startup rule: how ``StartupPolicy`` bends the fallback chain for a scope the origin has
/// not yet authorised in this launch. Two pure decisions ``JourneyHost`` performs.
enum StartupRule {
    /// How fresh stored content is for a new presentation.
    /// - Parameters:
    ///   - policy: the configuration's startup policy.
    ///   - authorisedThisLaunch: the origin authorised the scope since the host was created.
    ///   - window: the freshness window the document asks for.
    ///   - age: how long ago the origin last authorised it.
    ///   - staleContent: how old content may serve without a successful fetch.
    /// - Returns: the window's decision once authorised in this launch; before that,
    ///   `.requiresFetch` (the origin is asked first). Under ``StartupPolicy/cacheFirst``, content
    ///   that would need a fetch is shown at once and revalidated behind it
    ///   (`.presentAndRefresh`) while `staleContent` allows its age.
    static func freshness(
        policy: StartupPolicy, authorisedThisLaunch: Bool, window: FreshnessPolicy, age: Duration,
        staleContent: StaleContentPolicy = .lastGoodVersion
    ) -> FreshnessPolicy.Decision {
        let decision = authorisedThisLaunch ? window.decision(age: age) : .requiresFetch
        guard decision == .requiresFetch, policy == .cacheFirst, staleContent.allows(age: age) else { return decision }
        return .presentAndRefresh
    }

    /// Whether the stale cache may serve a new presentation the origin did not answer for:
    /// only while `staleContent` allows its age; then always once authorised in this launch,
    /// before that unless the policy is ``StartupPolicy/requireAuthorisation``.
    /// - Parameter age: how long ago the origin last authorised it; nil when unknown.
    static func servesStale(
        policy: StartupPolicy, authorisedThisLaunch: Bool, staleContent: StaleContentPolicy = .lastGoodVersion, age: Duration? = nil
    ) -> Bool {
        guard staleContent.allows(age: age) else { return false }
        return authorisedThisLaunch || policy != .requireAuthorisation
    }
}
