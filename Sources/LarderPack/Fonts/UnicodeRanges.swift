import Foundation

/// A set of Unicode code points as sorted, disjoint, non-adjacent closed ranges: what a CSS
/// `unicode-range` descriptor says, and what a font's character map holds.
public struct UnicodeRanges: Sendable, Hashable, CustomStringConvertible {
    /// Sorted, disjoint and non-adjacent.
    public private(set) var ranges: [ClosedRange<UInt32>]

    /// The set of the given ranges, in any order, overlapping or not.
    /// - Complexity: O(n log n).
    public init(_ ranges: [ClosedRange<UInt32>] = []) {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound || range.lowerBound - 1 == last.upperBound {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
                continue
            }
            merged.append(range)
        }
        self.ranges = merged
    }

    /// The set of these code points.
    public init(scalars: some Sequence<UInt32>) {
        self.init(scalars.map { $0...$0 })
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// How many code points.
    public var count: Int { ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } }

    /// - Complexity: O(log n).
    public func contains(_ scalar: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < scalar { low = middle + 1 } else { high = middle }
        }
        return low < ranges.count && ranges[low].contains(scalar)
    }

    public func union(_ other: UnicodeRanges) -> UnicodeRanges { UnicodeRanges(ranges + other.ranges) }

    /// - Complexity: O(n + m).
    public func intersection(_ other: UnicodeRanges) -> UnicodeRanges {
        var result: [ClosedRange<UInt32>] = []
        var left = 0
        var right = 0
        while left < ranges.count && right < other.ranges.count {
            let a = ranges[left]
            let b = other.ranges[right]
            let low = max(a.lowerBound, b.lowerBound)
            let high = min(a.upperBound, b.upperBound)
            if low <= high { result.append(low...high) }
            if a.upperBound < b.upperBound { left += 1 } else { right += 1 }
        }
        return UnicodeRanges(result)
    }

    public func intersects(_ other: UnicodeRanges) -> Bool { !intersection(other).isEmpty }

    /// The code points, in order (for small sets: text characters).
    public var scalars: [UInt32] { ranges.flatMap { Array($0) } }

    /// CSS form: `U+0-FF, U+131, U+2190-2193` (uppercase hex, no leading zeros).
    public var description: String {
        ranges.map { range in
            let low = String(range.lowerBound, radix: 16, uppercase: true)
            return range.lowerBound == range.upperBound ? "U+\(low)" : "U+\(low)-\(String(range.upperBound, radix: 16, uppercase: true))"
        }.joined(separator: ", ")
    }

    /// Parses a CSS `unicode-range` value: comma-separated `U+XXXX`, `U+XXXX-YYYY` and
    /// `U+4??` (wildcards), case-insensitive, each at most U+10FFFF.
    /// - Returns: nil when any item is malformed.
    public init?(css text: String) {
        var found: [ClosedRange<UInt32>] = []
        for item in text.split(separator: ",") {
            let token = item.trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.count > 2, token.prefix(2).uppercased() == "U+" else { return nil }
            let body = token.dropFirst(2)
            let parts = body.split(separator: "-", omittingEmptySubsequences: false)
            let range: ClosedRange<UInt32>
            if parts.count == 2 {
                guard let low = Self.hex(parts[0]), let high = Self.hex(parts[1]), low <= high else { return nil }
                range = low...high
            } else if parts.count == 1, body.contains("?") {
                let digits = body.prefix { $0 != "?" }
                let wild = body.count - digits.count
                guard body.dropFirst(digits.count).allSatisfy({ $0 == "?" }), body.count <= 6 else { return nil }
                let base = digits.isEmpty ? 0 : Self.hex(digits[...])
                guard let base else { return nil }
                let shift = UInt32(4 * wild)
                range = (base << shift)...((base << shift) | ((1 << shift) - 1))
            } else if parts.count == 1, let value = Self.hex(parts[0]) {
                range = value...value
            } else {
                return nil
            }
            guard range.upperBound <= 0x10FFFF else { return nil }
            found.append(range)
        }
        guard !found.isEmpty else { return nil }
        self.init(found)
    }

    private static func hex(_ text: Substring) -> UInt32? {
        guard (1...6).contains(text.count), text.allSatisfy(\.isHexDigit) else { return nil }
        return UInt32(text, radix: 16)
    }
}
