import Testing

@testable import LarderFormat

/// The lines and columns the packer's diagnostics name (a font reference, a `@font-face` rule,
/// a character a subset lacks): 1-based, columns in Unicode scalars.
@Suite struct LineCounterTests {
    /// What a location is by definition: count from the start of the text.
    func naive(_ bytes: [UInt8], _ offset: Int) -> (line: Int, column: Int) {
        let before = bytes[..<min(offset, bytes.count)]
        let lineStart = (before.lastIndex(of: 0x0A) ?? -1) + 1
        return (before.filter { $0 == 0x0A }.count + 1, bytes[lineStart..<before.endIndex].filter { $0 & 0xC0 != 0x80 }.count + 1)
    }

    @Test func locationsAcrossLinesAndMultibyteText() {
        let bytes = Array("a{}\né b\r\n\n€x url(f.woff2)\n😀😀y".utf8)
        bytes.withUnsafeBufferPointer { buffer in
            var counter = LineCounter(buffer)
            for offset in 0...bytes.count + 3 {
                let found = counter.location(of: offset)
                let expected = naive(bytes, offset)
                #expect(found == expected, "offset \(offset)")
            }
            // Asked out of order, it starts again.
            #expect(counter.location(of: 5) == naive(bytes, 5))
        }
    }

    /// Minified CSS: thousands of references on one line of 200 KB. Each location costs the bytes
    /// since the last one asked (counting from the line's start each time made a packer run over
    /// such a file quadratic, and the CSS fuzz target slow).
    @Test func manyOffsetsOnOneLongLineAreCountedOnce() {
        let rule = Array("@font-face{src:url(ä.woff2)}".utf8)
        let bytes = (0..<7_000).flatMap { _ in rule }
        let offsets = stride(from: 0, to: bytes.count, by: rule.count).map { $0 + 15 }
        bytes.withUnsafeBufferPointer { buffer in
            var counter = LineCounter(buffer)
            for (index, offset) in offsets.enumerated() {
                // 29 bytes and 28 scalars a rule; 15 ASCII bytes before the offset in each.
                let expected = (line: 1, column: index * 28 + 16)
                let found = counter.location(of: offset)
                guard found == expected else {
                    Issue.record("reference \(index): \(found), not \(expected)")
                    return
                }
            }
        }
    }
}
