/// How old downloaded content may be and still serve a new presentation when the origin cannot
/// answer (offline, failing, backing off, no answer within the fetch deadline) or, under
/// ``StartupPolicy/cacheFirst``, before it answers.
///
/// Apps differ, so both are expressible: show the last known-good version offline whatever its
/// age, the default; or require a successful fetch before a new presentation once content is
/// older than 30 minutes: ``strict``, past which the fallback chain goes on
/// to the embedded default or throws. An open presentation is never ended for age either way.
public enum StaleContentPolicy: Sendable, Equatable {
    /// The last good version, at any age (the default).
    case lastGoodVersion
    /// Content older than this (since the origin last authorised it) is not shown without a
    /// successful fetch.
    case maximumAge(Duration)

    /// Seed 000: past 30 minutes (``FreshnessPolicy/maximumAge``), a successful fetch first.
    public static let strict = StaleContentPolicy.maximumAge(FreshnessPolicy.maximumAge)

    /// Whether content last authorised `age` ago may serve a new presentation without a
    /// successful fetch; an unknown age only under ``lastGoodVersion``.
    func allows(age: Duration?) -> Bool {
        switch self {
        case .lastGoodVersion: true
        case .maximumAge(let limit): age.map { $0 <= limit } ?? false
        }
    }
}
