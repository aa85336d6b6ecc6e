import Foundation
import LarderFormat
import LarderHost

/// What to do next, for people, after a journey command met a denial or a backoff: one
/// `hint:` line on stderr under the error or the timeline. (`--json` output is unchanged: the
/// error object carries the code and the HTTP status these hints are chosen by.)
enum JourneyHints {
    /// The fix for a denial, chosen by its HTTP status: 401 (the origin does not know the key),
    /// 403 (it knows the key, but the key may not read the journey) or a confirmed 404 (no
    /// such journey). Nil for any other error.
    /// - Parameters:
    ///   - error: the error the run ended with.
    ///   - key: the publishable key sent (`--key`).
    ///   - journey: the journey asked for (`--journey`).
    static func denial(_ error: HostError, key: String, journey: String) -> String? {
        guard error.code == .denied else { return nil }
        let grant = "grant it with 'larder keys grant \(key) --journey \(journey) --origin <origin-folder>', then reload the origin "
            + "('Tools/origin/origin.sh reload <run-dir>', or 'nginx -s reload'); a later run asks again"
        switch error.status {
        case 401?:
            return "hint: HTTP 401: the origin does not know the publishable key '\(key)' (a typo in --key, or a key never "
                + "granted or since revoked: 'larder keys list --origin <origin-folder>' shows the keys it knows); " + grant
        case 403?:
            return "hint: HTTP 403: the origin knows the key '\(key)' but has not granted it journey '\(journey)'; " + grant
        case 404?:
            return "hint: HTTP 404: the origin has no journey '\(journey)' (check --journey, or publish it with "
                + "'larder publish <archive> --origin <origin-folder> --journey \(journey)')"
        default:
            return nil
        }
    }

    /// Why the origin was not asked: an earlier failed (or `--offline`) run started a backoff,
    /// which ends at `until`; `--force` asks at once.
    /// - Parameters:
    ///   - until: when the backoff ends, if known.
    ///   - now: the time to count from.
    static func backoff(until: Date?, now: Date) -> String {
        let when = until.map { " until \(JourneyReport.iso($0)) (in \(DurationText.describe(seconds: $0.timeIntervalSince(now))))" } ?? ""
        return "hint: the origin was not asked: an earlier run failed to reach it (or ran --offline), so the host backs off"
            + "\(when); add --force to ask the origin now"
    }
}
