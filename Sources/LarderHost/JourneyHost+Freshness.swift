import Foundation
import LarderFormat

extension FreshnessPolicy {
    /// The policy for the refresh interval a journey document asks for.
    init(_ document: JourneyDocument) { self.init(serverRefreshInterval: .seconds(document.refresh)) }
}

extension JourneyHost {
    /// How fresh `document`, renewed at `renewed`, is now: `.requiresFetch` unless the current
    /// scope was authorised in this launch (a new process asks the origin first) and the
    /// trusted keys still accept the document (it may have expired since).
    func freshness(of document: JourneyDocument, renewed: Date) -> FreshnessPolicy.Decision {
        guard authorisedThisLaunch.contains(configuration.scope), isStillTrusted(document) else { return .requiresFetch }
        return FreshnessPolicy(document).decision(age: clock.now.duration(since: renewed))
    }

    /// When content of `document` renewed at `renewed` is next due for a refresh.
    func refreshDate(of document: JourneyDocument, renewed: Date) -> Date {
        renewed.adding(FreshnessPolicy(document).refreshInterval)
    }
}
