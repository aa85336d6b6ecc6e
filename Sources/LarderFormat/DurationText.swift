import Foundation

/// Durations for people, the same way in every message and report: three significant digits
/// in the largest unit that keeps the number readable, trailing zeros dropped ("250 ms",
/// "9.99 s", "10 s" for 9.99998 s, "2.5 min", "3 h", "7 d"), never a count of attoseconds or
/// "9.999982081999999 seconds".
public enum DurationText {
    /// - Complexity: O(1).
    public static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return describe(seconds: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// A span in seconds (a `TimeInterval`); negative spans are shown as 0.
    public static func describe(seconds: Double) -> String {
        let value = seconds.isFinite ? max(0, seconds) : 0
        let units: [(name: String, seconds: Double, below: Double)] = [
            ("ms", 0.001, 1), ("s", 1, 120), ("min", 60, 7200), ("h", 3600, 172_800), ("d", 86_400, .infinity),
        ]
        for unit in units {
            let shown = significant(value / unit.seconds)
            // A value that rounds up to the next unit's threshold is shown in that unit.
            if (Double(shown) ?? 0) * unit.seconds < unit.below { return shown + " " + unit.name }
        }
        return significant(value / 86_400) + " d"
    }

    /// Three significant digits (whole numbers from 100 up), without trailing zeros.
    private static func significant(_ value: Double) -> String {
        guard value >= 0.0005 else { return "0" }
        let decimals = value >= 99.95 ? 0 : value >= 9.995 ? 1 : value >= 0.9995 ? 2 : 3
        var text = String(format: "%.\(decimals)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}
