import Foundation
import LarderFormat

extension FreshnessPolicy {
    /// The policy for the refresh interval a journey document asks for.
    init(_ document: JourneyDocument) { self.init(serverRefreshInterval: .seconds(document.refresh)) }
}

extension JourneyHost {
    /// How fresh `document`, renewed at `renewed`, is now: `.requiresFetch` when the trusted
    /// keys no longer accept it (it may have expired since); before the origin authorised the
    /// current scope in this launch, what the startup policy says (``StartupRule``: by default
    /// a new process asks the origin first); then the document's freshness window.
    func freshness(of document: JourneyDocument, renewed: Date) -> FreshnessPolicy.Decision {
        guard isStillTrusted(document) else { return .requiresFetch }
        return StartupRule.freshness(
            policy: configuration.startup, authorisedThisLaunch: authorisedThisLaunch.contains(configuration.scope),
            window: FreshnessPolicy(document), age: clock.now.duration(since: renewed))
    }

    /// Whether the stale cache may serve a new presentation of the current scope
    /// (``StartupRule/servesStale(policy:authorisedThisLaunch:)``).
    var servesStale: Bool {
        StartupRule.servesStale(policy: configuration.startup, authorisedThisLaunch: authorisedThisLaunch.contains(configuration.scope))
    }

    /// When content of `document` renewed at `renewed` is next due for a refresh.
    func refreshDate(of document: JourneyDocument, renewed: Date) -> Date {
        renewed.adding(FreshnessPolicy(document).refreshInterval)
    }
}
