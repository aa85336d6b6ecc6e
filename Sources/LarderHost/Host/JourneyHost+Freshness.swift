import Foundation
import LarderFormat

extension JourneyDocument {
    /// The freshness window the host holds content of this document to: the refresh interval
    /// it asks for, clamped (``FreshnessPolicy``). The one place a window is made.
    var window: FreshnessPolicy { FreshnessPolicy(serverRefreshInterval: .seconds(refresh)) }
}

extension PreparedJourney {
    /// The freshness window the host holds it to (``JourneyDocument/window``); nil for the
    /// embedded default.
    var window: FreshnessPolicy? { document?.window }

    /// Whether it is content the origin authorised, and so has a freshness window at all: not
    /// stale (a removal kept in service is stale too), not the embedded default.
    var isAuthorised: Bool { !stale && document != nil && renewed != nil }
}

extension JourneyHost {
    /// How fresh `journey` is now for a new presentation: the one freshness decision (the
    /// fallback chain's opening, a prepared journey's reuse, ``status()``, a warm-up all take
    /// it here). Nil when it is not authorised content (stale, embedded), which is
    /// never fresh. `.requiresFetch` when the trusted keys no longer accept its document (it may
    /// have expired since); before the origin authorised `scope` in this launch, what the
    /// startup policy says (``StartupRule``: by default a new process asks the origin first);
    /// then its freshness window.
    /// - Parameter scope: whose authorisation counts; by default the current configuration's.
    func freshness(of journey: PreparedJourney, in scope: String? = nil) -> FreshnessPolicy.Decision? {
        guard journey.isAuthorised, let document = journey.document, let renewed = journey.renewed, let window = journey.window else {
            return nil
        }
        guard isStillTrusted(document) else { return .requiresFetch }
        return StartupRule.freshness(
            policy: configuration.startup, authorisedThisLaunch: lifecycle.isAuthorised(scope ?? configuration.scope), window: window,
            age: clock.now.duration(since: renewed), staleContent: configuration.staleContent)
    }

    /// When `journey` is next due for a refresh: renewed plus its clamped interval; nil when it
    /// is not authorised content.
    func refreshDue(of journey: PreparedJourney) -> Date? {
        guard journey.isAuthorised, let renewed = journey.renewed, let window = journey.window else { return nil }
        return renewed.adding(window.refreshInterval)
    }

    /// Whether the stale cache may serve a new presentation of the current scope with content
    /// the origin last authorised at `renewed` (nil: unknown)
    /// (``StartupRule/servesStale(policy:authorisedThisLaunch:staleContent:age:)``).
    func servesStale(renewed: Date?) -> Bool {
        StartupRule.servesStale(
            policy: configuration.startup, authorisedThisLaunch: lifecycle.isAuthorised(configuration.scope),
            staleContent: configuration.staleContent, age: renewed.map { clock.now.duration(since: $0) })
    }
}
