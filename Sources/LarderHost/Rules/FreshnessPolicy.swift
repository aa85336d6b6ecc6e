/// The freshness window of a prepared flow.
///
/// The server's refresh interval is clamped to 10–30 minutes. Content younger than the refresh
/// interval opens at once; between the refresh interval and 30 minutes it opens at once and is
/// refreshed in the background; older content needs a successful fetch before a new
/// presentation. An active presentation is never ended for age.
public struct FreshnessPolicy: Sendable, Equatable {
    /// The shortest refresh interval honoured.
    public static let minimumRefreshInterval: Duration = .seconds(10 * 60)
    /// The age after which a new presentation needs a successful fetch.
    public static let maximumAge: Duration = .seconds(30 * 60)

    /// What to do with prepared content of a given age.
    public enum Decision: Sendable, Equatable {
        /// Present at once.
        case fresh
        /// Present at once and refresh in the background.
        case presentAndRefresh
        /// Fetch successfully before a new presentation.
        case requiresFetch
    }

    /// The clamped refresh interval.
    public let refreshInterval: Duration

    /// - Parameter serverRefreshInterval: what the configuration document asks for; nil or
    ///   out-of-range values are clamped into 10–30 minutes.
    public init(serverRefreshInterval: Duration?) {
        let asked = serverRefreshInterval ?? Self.minimumRefreshInterval
        refreshInterval = min(max(asked, Self.minimumRefreshInterval), Self.maximumAge)
    }

    /// Decides for content fetched `age` ago.
    public func decision(age: Duration) -> Decision {
        if age < refreshInterval { return .fresh }
        if age <= Self.maximumAge { return .presentAndRefresh }
        return .requiresFetch
    }
}
