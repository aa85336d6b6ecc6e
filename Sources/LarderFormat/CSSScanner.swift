/// Finds the URLs in CSS: `url()` quoted or not (with escapes, queries and fragments),
/// `@import` with a string or `url()`, and the `src` list of `@font-face` rules. Comments are
/// skipped; escapes are decoded.
package struct CSSScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    private var index: Int
    private(set) var references: [Reference] = []
    /// Each `@font-face` rule, from its `@` through its closing `}`.
    private(set) var fontFaceRules: [Range<Int>] = []

    /// Scans `bytes[range]`; offsets in the results are relative to `bytes`, so a `<style>`
    /// block can be scanned in place inside its HTML file.
    init(bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
        self.bytes = bytes
        self.index = range.lowerBound
        self.end = range.upperBound
    }

    package static func scan(_ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>? = nil) -> [Reference] {
        var scanner = CSSScanner(bytes: bytes, range: range ?? 0..<bytes.count)
        scanner.run()
        return scanner.references
    }

    /// The references, and the byte ranges of the `@font-face` rules (from `@` through `}`),
    /// both relative to `bytes`.
    package static func scanWithFontFaces(
        _ bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>? = nil
    ) -> (references: [Reference], fontFaceRules: [Range<Int>]) {
        var scanner = CSSScanner(bytes: bytes, range: range ?? 0..<bytes.count)
        scanner.run()
        return (scanner.references, scanner.fontFaceRules)
    }

    /// The words whose identity the scanner follows (compared without case); any other word
    /// is `other`, and a missing one `none`.
    private enum Keyword {
        case none, `import`, fontFace, src, other
    }

    private mutating func run() {
        // Block state: the innermost `{` opened by an @font-face rule, and the current property.
        var depth = 0
        var fontFaceDepth: Int? = nil
        var fontFaceStart = 0
        var atRuleStart = 0
        var pendingAtRule = Keyword.none
        var awaitingBlockFor: Keyword? = nil
        var property = Keyword.none
        var lastWord = Keyword.none
        while index < end {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "/") where index + 1 < end && bytes[index + 1] == UInt8(ascii: "*"):
                skipComment()
                continue
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let start = index
                let text = readString()
                if pendingAtRule == .import {
                    references.append(Reference(url: text, kind: .cssImport, offset: start + 1, replaceRange: nil))
                    pendingAtRule = .none
                }
                continue
            case UInt8(ascii: "@"):
                atRuleStart = index
                index += 1
                pendingAtRule = keyword(readIdentifier())
                awaitingBlockFor = pendingAtRule
                continue
            case UInt8(ascii: "{"):
                depth += 1
                if awaitingBlockFor == .fontFace {
                    fontFaceDepth = depth
                    fontFaceStart = atRuleStart
                }
                awaitingBlockFor = nil
                pendingAtRule = .none
                property = .none
            case UInt8(ascii: "}"):
                if fontFaceDepth == depth {
                    fontFaceDepth = nil
                    fontFaceRules.append(fontFaceStart..<(index + 1))
                }
                depth = max(0, depth - 1)
                property = .none
            case UInt8(ascii: ";"):
                pendingAtRule = .none
                awaitingBlockFor = nil
                property = .none
            case UInt8(ascii: ":"):
                if property == .none { property = lastWord }
            case UInt8(ascii: "\\"):
                index += 2
                continue
            default:
                if isIdentifierByte(byte) {
                    let start = index
                    let word = readIdentifier()
                    if index < end, bytes[index] == UInt8(ascii: "("), lowercased(word, equals: "url") {
                        let inFontSource = fontFaceDepth != nil && fontFaceDepth == depth && property == .src
                        readURLFunction(start: start, isFontSource: inFontSource, isImport: pendingAtRule == .import)
                        pendingAtRule = .none
                    } else {
                        lastWord = keyword(word)
                    }
                    continue
                }
            }
            index += 1
        }
    }

    private func keyword(_ word: Range<Int>) -> Keyword {
        if word.isEmpty { return .none }
        if lowercased(word, equals: "src") { return .src }
        if lowercased(word, equals: "import") { return .import }
        if lowercased(word, equals: "font-face") { return .fontFace }
        return .other
    }

    /// Whether `bytes[word]`, ASCII-lowercased, is `text`.
    private func lowercased(_ word: Range<Int>, equals text: StaticString) -> Bool {
        guard word.count == text.utf8CodeUnitCount else { return false }
        for offset in 0..<word.count where asciiLower(bytes[word.lowerBound + offset]) != text.utf8Start[offset] { return false }
        return true
    }

    private func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    private mutating func readIdentifier() -> Range<Int> {
        let start = index
        while index < end, isIdentifierByte(bytes[index]) { index += 1 }
        return start..<index
    }

    private mutating func skipComment() {
        index += 2
        while index + 1 < end, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
        index = min(end, index + 2)
    }

    /// Reads a quoted string starting at its quote; returns its decoded value.
    private mutating func readString() -> String {
        let quote = bytes[index]
        index += 1
        var value: [UInt8] = []
        while index < end {
            let byte = bytes[index]
            if byte == quote { index += 1; break }
            if byte == 0x0A { break }  // an unterminated string ends at the line
            if byte == UInt8(ascii: "\\") {
                index += 1
                if index < end, bytes[index] == 0x0A { index += 1; continue }
                appendEscape(into: &value)
                continue
            }
            value.append(byte)
            index += 1
        }
        return String(decoding: value, as: UTF8.self)
    }

    /// Decodes the escape after a backslash: 1 to 6 hex digits and one optional space, or any
    /// other character as itself.
    private mutating func appendEscape(into value: inout [UInt8]) {
        guard index < end else { return }
        var code: UInt32 = 0
        var digits = 0
        while index < end, digits < 6, let nibble = hexValue(bytes[index]) {
            code = code << 4 | nibble
            digits += 1
            index += 1
        }
        if digits == 0 {
            value.append(bytes[index])
            index += 1
            return
        }
        if index < end, isASCIIWhitespace(bytes[index]) { index += 1 }
        let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
        value.append(contentsOf: String(Character(scalar)).utf8)
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        default: nil
        }
    }

    /// Reads `url(...)` whose name starts at `start` and whose `(` is at `index`.
    private mutating func readURLFunction(start: Int, isFontSource: Bool, isImport: Bool) {
        index += 1
        while index < end, isASCIIWhitespace(bytes[index]) { index += 1 }
        guard index < end else { return }
        let valueStart: Int
        var url: String
        if bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
            valueStart = index + 1
            url = readString()
            while index < end, bytes[index] != UInt8(ascii: ")") { index += 1 }
        } else {
            valueStart = index
            var value: [UInt8] = []
            while index < end, bytes[index] != UInt8(ascii: ")") {
                if bytes[index] == UInt8(ascii: "\\") {
                    index += 1
                    appendEscape(into: &value)
                    continue
                }
                value.append(bytes[index])
                index += 1
            }
            while let last = value.last, isASCIIWhitespace(last) { value.removeLast() }
            url = String(decoding: value, as: UTF8.self)
        }
        let closing = min(end, index + 1)
        index = closing
        let kind: Reference.Kind = isImport ? .cssImport : (isFontSource ? .fontSource : .resource)
        references.append(
            Reference(url: url, kind: kind, offset: valueStart, replaceRange: kind == .fontSource ? start..<closing : nil))
    }
}
