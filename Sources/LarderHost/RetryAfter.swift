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
        guard let date = httpDate(trimmed) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : .zero
    }

    /// Parses the three HTTP-date forms recipients must accept: IMF-fixdate, RFC 850 and
    /// asctime. An HTTP-date is printable ASCII: anything else is refused before
    /// `DateFormatter` sees it, which stops the process on some non-ASCII text ("Incorrect
    /// range CFRange", found by the retry-after fuzz target: an origin's header could crash an
    /// app).
    public static func httpDate(_ text: String) -> Date? {
        guard text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text.replacingOccurrences(of: "  ", with: " ")) { return date }
        }
        return nil
    }
}
