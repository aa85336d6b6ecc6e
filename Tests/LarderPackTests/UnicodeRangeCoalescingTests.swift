import Testing
@testable import LarderPack

/// The rule for a `unicode-range` past 256 ranges (``UnicodeRanges/coalesced(within:limit:)``):
/// always a superset; first the gaps holding no character of the font close, then those holding
/// the fewest.
@Suite struct UnicodeRangeCoalescingTests {
    static func singles(_ points: some Sequence<UInt32>) -> UnicodeRanges { UnicodeRanges(scalars: points) }

    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var subset: UnicodeRanges
        var font: UnicodeRanges
        var limit: Int
        var expected: String
    }

    static let cases: [Case] = [
        Case(description: "at the limit: as it is", subset: singles([1, 3, 5]), font: singles([1, 3, 5]), limit: 3, expected: "U+1, U+3, U+5"),
        Case(description: "gaps the font lacks close first, all of them", subset: singles([1, 3, 5, 9]), font: singles([1, 3, 5, 7, 9]), limit: 3,
             expected: "U+1-5, U+9"),
        Case(description: "then the gaps holding the fewest of the font's characters", subset: singles([0, 10, 20, 30]),
             font: UnicodeRanges([0...0, 5...6, 10...10, 15...15, 20...20, 25...27, 30...30]), limit: 2, expected: "U+0-14, U+1E"),
        Case(description: "as many of the font's characters: the narrower gap", subset: singles([0, 5, 7]), font: singles([0, 2, 5, 6, 7]), limit: 2,
             expected: "U+0, U+5-7"),
        Case(description: "as many and as wide: the first", subset: singles([0, 2, 4]), font: UnicodeRanges([0...4]), limit: 2, expected: "U+0-2, U+4"),
        Case(description: "down to one range", subset: singles([2, 4, 6]), font: UnicodeRanges([0...9]), limit: 1, expected: "U+2-6"),
    ]

    @Test(arguments: cases)
    func coalescing(_ test: Case) {
        let written = test.subset.coalesced(within: test.font, limit: test.limit)
        #expect(written.description == test.expected)
        #expect(written.intersection(test.subset) == test.subset)
        #expect(written.ranges.count <= test.limit)
    }

    /// The attack's shape at full size: every other code point of every plane, 557,056 ranges,
    /// written as one.
    @Test func halfOfUnicodeIsOneRange() {
        let font = UnicodeRanges(stride(from: UInt32(0), through: 0x10FFFF, by: 2).map { $0...$0 })
        #expect(font.ranges.count == 557_056)
        #expect(font.coalesced(within: font).description == "U+0-10FFFE")
    }
}
