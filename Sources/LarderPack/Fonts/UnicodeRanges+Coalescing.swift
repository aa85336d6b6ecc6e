/// How long a `unicode-range` the packer writes may be.
///
/// A subset's `unicode-range` is the characters it holds, and a font can map its characters in
/// any pattern (every other code point of every plane: 550,000 ranges, a 5 MB essential
/// stylesheet). The descriptor is a hint for which subset to download: an engine that finds a
/// character in a subset's range downloads the subset, and when the subset has no glyph for it,
/// falls back as for any character a font lacks (to the face's other subsets, then the next
/// family). So a range may hold more than the subset, at the price of a download, but never less
/// (a character left out never loads the subset and shows in a fallback font).
///
/// The rule: at most ``maximumWrittenRanges`` ranges. Past that, first every gap between two
/// ranges that holds no character of the font is closed: this changes nothing an engine does
/// for a character the font has (it still loads exactly the subset holding it), only text with
/// characters the font lacks may load the subset before falling back. If that is not enough,
/// the gaps holding the fewest characters of the font are closed next (a character of another
/// subset, or of none, then loads this subset too before falling back to the one that has it:
/// one download more, never another glyph), until the limit holds.
extension UnicodeRanges {
    /// 256 ranges: at most about 4.4 kB of `U+XXXXX-XXXXX, ` items per rule. Named ranges and
    /// real fonts stay far below (Google Fonts' `latin` is 20 ranges).
    static let maximumWrittenRanges = 256

    /// These ranges (a subset's characters) as the `unicode-range` to write: themselves when
    /// they are at most `limit` ranges, else the smallest over-approximation of the rule above.
    /// - Parameters:
    ///   - font: every character the font maps.
    ///   - limit: the most ranges (at least 1).
    /// - Returns: a superset of these ranges of at most `limit` ranges.
    /// - Complexity: O((n + m) log n), n ranges here and m in `font`.
    func coalesced(within font: UnicodeRanges, limit: Int = maximumWrittenRanges) -> UnicodeRanges {
        precondition(limit >= 1)
        guard ranges.count > limit else { return self }
        // Each gap between range i and i + 1, with the characters of the font it holds.
        var gaps: [(index: Int, fontCharacters: Int, width: UInt32)] = []
        gaps.reserveCapacity(ranges.count - 1)
        var cursor = 0
        for index in 0..<(ranges.count - 1) {
            let low = ranges[index].upperBound + 1
            let high = ranges[index + 1].lowerBound - 1
            while cursor < font.ranges.count, font.ranges[cursor].upperBound < low { cursor += 1 }
            var held = 0
            var scan = cursor
            while scan < font.ranges.count, font.ranges[scan].lowerBound <= high {
                held += Int(Swift.min(high, font.ranges[scan].upperBound) - Swift.max(low, font.ranges[scan].lowerBound)) + 1
                scan += 1
            }
            gaps.append((index, held, high - low + 1))
        }
        var closed = [Bool](repeating: false, count: ranges.count - 1)
        var remaining = ranges.count
        for gap in gaps where gap.fontCharacters == 0 {
            closed[gap.index] = true
            remaining -= 1
        }
        if remaining > limit {
            let open = gaps.filter { $0.fontCharacters > 0 }.sorted {
                ($0.fontCharacters, $0.width, $0.index) < ($1.fontCharacters, $1.width, $1.index)
            }
            for gap in open.prefix(remaining - limit) { closed[gap.index] = true }
        }
        var result: [ClosedRange<UInt32>] = []
        var start = ranges[0].lowerBound
        for index in 0..<ranges.count {
            if index < closed.count, closed[index] { continue }
            result.append(start...ranges[index].upperBound)
            if index + 1 < ranges.count { start = ranges[index + 1].lowerBound }
        }
        return UnicodeRanges(result)
    }
}
