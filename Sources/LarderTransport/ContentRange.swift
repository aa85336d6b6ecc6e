/// The value of a `Content-Range` header on a 206 or a 416 answer (RFC 9110 section 14.4):
/// `bytes <first>-<last>/<length>`, or `bytes */<length>` for a range past the end.
///
/// Parsing is strict: the unit `bytes` (any case), one space, positions and length as decimal
/// digits that fit an `Int64`, `first <= last < length`. An unknown length (`/*`), signs,
/// other spacing or separators are refused: a download needs the length to bound what it
/// receives.
package struct ContentRange: Sendable, Equatable, CustomStringConvertible {
    /// The positions of the first and last byte sent; nil for `bytes */<length>`.
    package var bytes: ClosedRange<Int64>?
    /// The whole representation's length.
    package var length: Int64

    package init(bytes: ClosedRange<Int64>?, length: Int64) {
        self.bytes = bytes
        self.length = length
    }

    /// - Returns: nil for anything but the two forms above.
    /// - Complexity: O(n) in the text's length.
    package init?(parsing text: String) {
        var utf8 = Substring(text).utf8[...]
        guard utf8.count <= 64, utf8.prefix(6).map({ $0 | 0x20 }).elementsEqual("bytes ".utf8) else { return nil }
        utf8 = utf8.dropFirst(6)
        guard let slash = utf8.firstIndex(of: UInt8(ascii: "/")), let length = Self.number(utf8[utf8.index(after: slash)...]) else {
            return nil
        }
        let range = utf8[..<slash]
        if range.elementsEqual("*".utf8) {
            self.init(bytes: nil, length: length)
            return
        }
        guard let dash = range.firstIndex(of: UInt8(ascii: "-")), let first = Self.number(range[..<dash]),
            let last = Self.number(range[range.index(after: dash)...]), first <= last, last < length
        else { return nil }
        self.init(bytes: first...last, length: length)
    }

    /// `bytes <first>-<last>/<length>` or `bytes */<length>`.
    package var description: String {
        guard let bytes else { return "bytes */\(length)" }
        return "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(length)"
    }

    /// One or more decimal digits that fit an `Int64`.
    private static func number(_ digits: Substring.UTF8View.SubSequence) -> Int64? {
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        var value: Int64 = 0
        for digit in digits {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
