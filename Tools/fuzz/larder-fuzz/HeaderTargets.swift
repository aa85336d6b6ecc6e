import Foundation
import LarderHost
import LarderTransport

/// HTTP header values an origin sends: `Retry-After` (the journey host's backoff) and
/// `Content-Range` (resumed archive downloads).
enum HeaderTargets {
    /// A fixed "now", so a run does not depend on the day: 2025-06-01T00:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_748_736_000)

    static let retryAfter = FuzzTarget(
        name: "retry-after",
        summary: "RetryAfter.delay; never negative, delay-seconds exactly, a date's wait its distance from now",
        maximumLength: 128,
        run: { bytes in
            let value = bytes.text
            guard let delay = RetryAfter.delay(value, now: now) else { return }
            require(delay >= .zero, "'\(value)' waits \(delay)")
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                if let seconds = Int64(trimmed) { require(delay == .seconds(seconds), "'\(value)' waits \(delay)") }
                return
            }
            guard let date = RetryAfter.httpDate(trimmed, now: now) else {
                require(false, "'\(value)' gives a delay but is neither seconds nor a date")
                return
            }
            let distance = date.timeIntervalSince(now)
            if distance <= 0 {
                require(delay == .zero, "'\(value)' is in the past yet waits \(delay)")
            } else {
                let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
                require(abs(seconds - distance) <= max(0.002, distance * 1e-12), "'\(value)' is \(distance) s away but waits \(delay)")
            }
        },
        seeds: { SeedSources.retryAfterValues() })

    static let contentRange = FuzzTarget(
        name: "content-range",
        summary: "ContentRange(parsing:); a range that parses prints back, first <= last < length",
        maximumLength: 128,
        run: { bytes in
            let text = bytes.text
            guard let range = ContentRange(parsing: text) else { return }
            if let sent = range.bytes {
                require(sent.lowerBound >= 0 && sent.upperBound < range.length, "'\(text)' parses as \(range)")
            }
            require(ContentRange(parsing: range.description) == range, "\(range) does not read back")
            // The same digits, the unit in lowercase, leading zeros dropped.
            let normalized = "bytes " + text.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false).map { part in
                part.split(separator: "-", omittingEmptySubsequences: false).map { number in
                    number == "*" ? "*" : String(Int64(number) ?? -1)
                }.joined(separator: "-")
            }.joined(separator: "/")
            require(range.description == normalized, "'\(text)' parses as '\(range)'")
        },
        seeds: { SeedSources.contentRanges() })
}
