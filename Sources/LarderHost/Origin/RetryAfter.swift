import Foundation

/// The HTTP `Retry-After` header (RFC 9110 section 10.2.3): either delay seconds or an
/// HTTP-date.
public enum RetryAfter {
    /// How long to wait, given the header value and the current time; nil when the value is
    /// neither form. A date in the past means no wait.
    public static func delay(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) {
            guard let seconds = Int64(trimmed) else { return .seconds(Int64.max / 2) }
            return .seconds(seconds)
        }
        guard let date = httpDate(trimmed, now: now) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : .zero
    }

    /// The date an HTTP-date names, in any of the three forms recipients must accept
    ///; `now` places a two-digit rfc850 year.
    public static func httpDate(_ text: String, now: Date) -> Date? {
        HTTPDate.parse(text, now: now)
    }
}
