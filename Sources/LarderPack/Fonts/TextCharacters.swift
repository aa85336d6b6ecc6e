import LarderFormat

/// The characters a page shows people without running a script: the text of an HTML document
/// (outside `<script>` and `<style>`, character references decoded), the attribute values
/// people read (`alt`, `title`, `placeholder`, `aria-label`, `value`, `label`), and the strings
/// of CSS `content` declarations (stylesheets, `<style>` blocks), each with the first place it
/// appears.
struct TextCharacters: Sendable, Equatable {
    /// Code point to its first place in the file.
    var firstPlaces: [UInt32: SourceLocation] = [:]

    var ranges: UnicodeRanges { UnicodeRanges(scalars: firstPlaces.keys) }

    /// Adds another file's characters; a character keeps the place seen first.
    mutating func merge(_ other: TextCharacters) {
        firstPlaces.merge(other.firstPlaces) { mine, _ in mine }
    }

    /// Scans one HTML document or stylesheet.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, isDocument: Bool, path: String) -> TextCharacters {
        var scanner = Scanner(bytes: bytes)
        if isDocument { scanner.document() } else { scanner.stylesheet(0..<bytes.count) }
        var lines = LineCounter(bytes)
        var result = TextCharacters()
        for (offset, scalar) in scanner.found.sorted(by: { $0.offset < $1.offset }).map({ ($0.offset, $0.scalar) }) {
            let (line, column) = lines.location(of: offset)
            result.firstPlaces[scalar] = SourceLocation(file: path, line: line, column: column)
        }
        return result
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var seen: Set<UInt32> = []
        var found: [(offset: Int, scalar: UInt32)] = []

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func note(_ scalar: UInt32, at offset: Int) {
            guard scalar >= 0x20, scalar != 0x7F, seen.insert(scalar).inserted else { return }
            found.append((offset, scalar))
        }

        /// Text between `range`, UTF-8 decoded, character references decoded when `references`.
        mutating func text(_ range: Range<Int>, references: Bool) {
            var index = range.lowerBound
            while index < range.upperBound {
                let byte = bytes[index]
                if references, byte == UInt8(ascii: "&"), let (scalars, length) = reference(at: index, end: range.upperBound) {
                    for scalar in scalars { note(scalar, at: index) }
                    index += length
                    continue
                }
                let (scalar, length) = decodeUTF8(at: index, end: range.upperBound)
                note(scalar, at: index)
                index += length
            }
        }

        func decodeUTF8(at index: Int, end: Int) -> (UInt32, Int) {
            let byte = bytes[index]
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            guard length > 1, index + length <= end else { return (byte < 0x80 ? UInt32(byte) : 0xFFFD, 1) }
            var value = UInt32(byte) & (0xFF >> (length + 1))
            for offset in 1..<length {
                let next = bytes[index + offset]
                guard next & 0xC0 == 0x80 else { return (0xFFFD, 1) }
                value = value << 6 | UInt32(next & 0x3F)
            }
            return (value, length)
        }

        /// `&name;`, `&#123;` or `&#x1F;` at `index`: the characters and the reference's length.
        func reference(at index: Int, end: Int) -> ([UInt32], Int)? {
            var position = index + 1
            while position < end, position - index <= 40, bytes[position] != UInt8(ascii: ";") {
                let byte = bytes[position]
                guard (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "#") else {
                    return nil
                }
                position += 1
            }
            guard position < end, bytes[position] == UInt8(ascii: ";") else { return nil }
            let name = String(decoding: bytes[(index + 1)..<position], as: UTF8.self)
            let length = position + 1 - index
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                return UInt32(name.dropFirst(2), radix: 16).map { ([$0], length) }
            } else if name.hasPrefix("#") {
                return UInt32(name.dropFirst()).map { ([$0], length) }
            }
            return CharacterReferences.table[name].map { ($0, length) }
        }

        mutating func document() {
            var index = 0
            let end = bytes.count
            var textStart = 0
            while index < end {
                guard bytes[index] == UInt8(ascii: "<") else {
                    index += 1
                    continue
                }
                text(textStart..<index, references: true)
                if starts("<!--", at: index) {
                    index = find("-->", from: index + 4).map { $0 + 3 } ?? end
                } else if starts("<!", at: index) || starts("<?", at: index) || starts("</", at: index) {
                    index = find(">", from: index + 1).map { $0 + 1 } ?? end
                } else if index + 1 < end, (bytes[index + 1] | 0x20) >= 0x61, (bytes[index + 1] | 0x20) <= 0x7A {
                    index = tag(at: index)
                } else {
                    note(UInt32(UInt8(ascii: "<")), at: index)
                    index += 1
                }
                textStart = index
            }
            text(textStart..<end, references: true)
        }

        /// Reads a start tag at `index`; returns where the document goes on (after raw text for
        /// `<script>` and `<style>`).
        mutating func tag(at start: Int) -> Int {
            var index = start + 1
            let end = bytes.count
            let nameStart = index
            while index < end, !isASCIIWhitespaceByte(bytes[index]), bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/") {
                index += 1
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            while index < end, bytes[index] != UInt8(ascii: ">") {
                if isASCIIWhitespaceByte(bytes[index]) || bytes[index] == UInt8(ascii: "/") {
                    index += 1
                    continue
                }
                let attributeStart = index
                while index < end, !isASCIIWhitespaceByte(bytes[index]), bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ">") {
                    index += 1
                }
                let attribute = String(decoding: bytes[attributeStart..<index], as: UTF8.self).lowercased()
                while index < end, isASCIIWhitespaceByte(bytes[index]) { index += 1 }
                guard index < end, bytes[index] == UInt8(ascii: "=") else { continue }
                index += 1
                while index < end, isASCIIWhitespaceByte(bytes[index]) { index += 1 }
                let value: Range<Int>
                if index < end, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
                    let quote = bytes[index]
                    let valueStart = index + 1
                    index = valueStart
                    while index < end, bytes[index] != quote { index += 1 }
                    value = valueStart..<index
                    if index < end { index += 1 }
                } else {
                    let valueStart = index
                    while index < end, !isASCIIWhitespaceByte(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
                    value = valueStart..<index
                }
                switch attribute {
                case "alt", "title", "placeholder", "aria-label", "value", "label": text(value, references: true)
                default: break
                }
            }
            index = min(end, index + 1)
            switch name {
            case "script", "style":
                let close = findClosing(name, from: index) ?? end
                if name == "style" { stylesheet(index..<close) }
                return close
            default:
                return index
            }
        }

        /// The strings of `content` declarations in CSS at `range`.
        mutating func stylesheet(_ range: Range<Int>) {
            var index = range.lowerBound
            var inContent = false
            while index < range.upperBound {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/"), index + 1 < range.upperBound, bytes[index + 1] == UInt8(ascii: "*") {
                    index = find("*/", from: index + 2).map { $0 + 2 } ?? range.upperBound
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    index = cssString(at: index, end: range.upperBound, keep: inContent)
                    continue
                case UInt8(ascii: ";"), UInt8(ascii: "}"), UInt8(ascii: "{"):
                    inContent = false
                case UInt8(ascii: "c"), UInt8(ascii: "C"):
                    if matchesWord("content", at: index, end: range.upperBound) {
                        var after = index + 7
                        while after < range.upperBound, isASCIIWhitespaceByte(bytes[after]) { after += 1 }
                        if after < range.upperBound, bytes[after] == UInt8(ascii: ":") {
                            inContent = true
                            index = after + 1
                            continue
                        }
                    }
                default: break
                }
                index += 1
            }
        }

        func matchesWord(_ word: StaticString, at index: Int, end: Int) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= end else { return false }
            if index > 0 {
                let before = bytes[index - 1]
                if before == UInt8(ascii: "-") || (before | 0x20) >= 0x61 && (before | 0x20) <= 0x7A { return false }
            }
            for offset in 0..<count where bytes[index + offset] | 0x20 != word.utf8Start[offset] { return false }
            return true
        }

        /// Reads a CSS string at its quote, noting its characters (escapes decoded) when `keep`.
        mutating func cssString(at start: Int, end: Int, keep: Bool) -> Int {
            let quote = bytes[start]
            var index = start + 1
            while index < end, bytes[index] != quote, bytes[index] != 0x0A {
                if bytes[index] == UInt8(ascii: "\\") {
                    index += 1
                    var digits = 0
                    var value: UInt32 = 0
                    while index < end, digits < 6, let nibble = hexDigit(bytes[index]) {
                        value = value << 4 | nibble
                        digits += 1
                        index += 1
                    }
                    if digits > 0 {
                        if index < end, isASCIIWhitespaceByte(bytes[index]) { index += 1 }
                        if keep { note(value, at: start) }
                    } else if index < end {
                        if keep, bytes[index] != 0x0A { note(UInt32(bytes[index]), at: index) }
                        index += 1
                    }
                    continue
                }
                let (scalar, length) = decodeUTF8(at: index, end: end)
                if keep { note(scalar, at: index) }
                index += length
            }
            return min(end, index + 1)
        }

        func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case 0x30...0x39: UInt32(byte - 0x30)
            case 0x41...0x46: UInt32(byte - 0x41 + 10)
            case 0x61...0x66: UInt32(byte - 0x61 + 10)
            default: nil
            }
        }

        func starts(_ text: StaticString, at index: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
            return true
        }

        func find(_ text: StaticString, from start: Int) -> Int? {
            var index = start
            while index + text.utf8CodeUnitCount <= bytes.count {
                if starts(text, at: index) { return index }
                index += 1
            }
            return nil
        }

        /// The offset of `</name` (any case) at or after `start`.
        func findClosing(_ name: String, from start: Int) -> Int? {
            let wanted = Array(name.utf8)
            var index = start
            while index + 2 + wanted.count <= bytes.count {
                if bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "/") {
                    var matches = true
                    for offset in 0..<wanted.count where bytes[index + 2 + offset] | 0x20 != wanted[offset] { matches = false; break }
                    if matches { return index }
                }
                index += 1
            }
            return nil
        }
    }
}
