import Foundation

/// One `@font-face` rule of a stylesheet or `<style>` block, read far enough to rewrite it: its
/// byte range, the descriptors that name the face, and where its `src` declarations are.
struct FontFaceRule: Sendable, Equatable {
    /// From `@` through `}`, in the file's bytes.
    var range: Range<Int>
    /// The rule's bytes (`range` of the file).
    var text: [UInt8]
    /// `font-family`, unquoted.
    var family: String
    var weight: String
    var style: String
    /// The rule has its own `unicode-range`: it is converted whole, never split.
    var hasUnicodeRange: Bool
    /// The value bytes of each `src` declaration (after `:`, up to `;` or `}`).
    var sourceValues: [Range<Int>]
    /// Each `src` declaration whole, from its name through its `;` (Font Awesome's first one
    /// is for old Internet Explorers).
    var sourceDeclarations: [Range<Int>]
    /// The `local(…)` items of the last `src`, as written: kept before the packed source.
    var localSources: [String]
    /// The bundle files its `url()` sources name, in order (resolved by the analysis).
    var files: [String] = []
    /// Where it starts (set by the analysis).
    var location = SourceLocation(file: "", line: 1, column: 1)

    /// The face as people read it: `"Lato" 700 normal`.
    var name: String { "'\(family)' \(weight) \(style)" }

    /// Reads the rule at `range` of `bytes`.
    init(bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
        self.range = range
        text = Array(bytes[range])
        family = ""
        weight = "normal"
        style = "normal"
        hasUnicodeRange = false
        sourceValues = []
        sourceDeclarations = []
        localSources = []
        guard let open = bytes[range].firstIndex(of: UInt8(ascii: "{")) else { return }
        for declaration in Self.declarations(bytes, from: open + 1, to: range.upperBound - 1) {
            let name = String(decoding: bytes[declaration.name], as: UTF8.self).lowercased()
            let value = String(decoding: bytes[declaration.value], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "font-family": family = Self.unquoted(value)
            case "font-weight": weight = value
            case "font-style": style = value
            case "unicode-range": hasUnicodeRange = true
            case "src":
                sourceValues.append(declaration.value)
                sourceDeclarations.append(declaration.whole)
                localSources = Self.items(value).filter { $0.lowercased().hasPrefix("local(") }
            default: break
            }
        }
    }

    /// The `name: value` declarations between `start` and `end`, skipping comments and keeping
    /// strings and parentheses whole.
    private static func declarations(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
    ) -> [(name: Range<Int>, value: Range<Int>, whole: Range<Int>)] {
        var result: [(Range<Int>, Range<Int>, Range<Int>)] = []
        var index = start
        var declarationStart = start
        var colon: Int?
        var depth = 0
        func finish(at position: Int) {
            if let colon {
                var nameStart = declarationStart
                while nameStart < colon, isASCIIWhitespaceByte(bytes[nameStart]) { nameStart += 1 }
                var nameEnd = colon
                while nameEnd > nameStart, isASCIIWhitespaceByte(bytes[nameEnd - 1]) { nameEnd -= 1 }
                let through = position < end && bytes[position] == UInt8(ascii: ";") ? position + 1 : position
                result.append((nameStart..<nameEnd, (colon + 1)..<position, nameStart..<through))
            }
            colon = nil
            declarationStart = position + 1
        }
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/"), index + 1 < end, bytes[index + 1] == UInt8(ascii: "*") {
                index += 2
                while index + 1 < end, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
                index += 2
                if colon == nil { declarationStart = index }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                index += 1
                while index < end, bytes[index] != byte {
                    if bytes[index] == UInt8(ascii: "\\") { index += 1 }
                    index += 1
                }
            case UInt8(ascii: "\\"): index += 1
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"): depth = max(0, depth - 1)
            case UInt8(ascii: ":") where colon == nil && depth == 0: colon = index
            case UInt8(ascii: ";") where depth == 0: finish(at: index)
            default: break
            }
            index += 1
        }
        finish(at: min(index, end))
        return result
    }

    /// The comma-separated items of a value, outside strings and parentheses.
    static func items(_ value: String) -> [String] {
        var items: [String] = []
        var current = ""
        var depth = 0
        var quote: Character?
        for character in value {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "(" {
                depth += 1
            } else if character == ")" {
                depth = max(0, depth - 1)
            } else if character == ",", depth == 0 {
                items.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
                current = ""
                continue
            }
            current.append(character)
        }
        let last = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !last.isEmpty { items.append(last) }
        return items
    }

    static func unquoted(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first else { return text }
        return String(text.dropFirst().dropLast())
    }
}

@inline(__always) func isASCIIWhitespaceByte(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
}

