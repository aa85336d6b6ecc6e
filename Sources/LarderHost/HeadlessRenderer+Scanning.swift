import Foundation
import LarderCache
import LarderFormat
import Synchronization

/// Finds `larder-font://…` URLs in HTML or CSS bytes: each runs from the scheme to the first
/// quote, parenthesis, whitespace, `;`, `,`, `<`, `>` or `\`.
enum FontScanner {
    static func urls(in bytes: [UInt8]) -> [String] {
        let prefix = Array("larder-font://".utf8)
        let terminators = Set("\"'() \t\r\n\u{0C};,<>\\".utf8)
        var found: [String] = []
        var index = 0
        while index + prefix.count <= bytes.count {
            guard bytes[index] == prefix[0], bytes[index..<index + prefix.count].elementsEqual(prefix) else {
                index += 1
                continue
            }
            var end = index + prefix.count
            while end < bytes.count, !terminators.contains(bytes[end]) { end += 1 }
            found.append(String(decoding: bytes[index..<end], as: UTF8.self))
            index = end
        }
        return found
    }
}

/// The values of `src=` and `href=` attributes in HTML, with `&amp;`-style character references
/// decoded. Comments, declarations and the raw text of `<script>`, `<style>`, `<textarea>` and
/// `<title>` are skipped.
struct AttributeScanner {
    private let bytes: [UInt8]
    private var index = 0
    private var found: [String] = []

    static func references(in bytes: [UInt8]) -> [String] {
        var scanner = AttributeScanner(bytes: bytes)
        scanner.run()
        return scanner.found
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
    private static func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }

    private mutating func run() {
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<"), index + 1 < bytes.count else { index += 1; continue }
            let next = bytes[index + 1]
            if starts(with: "<!--", at: index) {
                index = find("-->", from: index + 4).map { $0 + 3 } ?? bytes.count
            } else if next == UInt8(ascii: "!") || next == UInt8(ascii: "?") || next == UInt8(ascii: "/") {
                index = find(">", from: index + 2).map { $0 + 1 } ?? bytes.count
            } else if (0x61...0x7A).contains(Self.lower(next)) {
                readTag()
            } else {
                index += 1
            }
        }
    }

    private func starts(with text: String, at position: Int) -> Bool {
        let pattern = Array(text.utf8)
        guard position + pattern.count <= bytes.count else { return false }
        return pattern.indices.allSatisfy { Self.lower(bytes[position + $0]) == pattern[$0] }
    }

    private func find(_ text: String, from start: Int) -> Int? {
        var position = start
        while position < bytes.count {
            if starts(with: text, at: position) { return position }
            position += 1
        }
        return nil
    }

    private mutating func readTag() {
        index += 1
        let nameStart = index
        while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "/") {
            index += 1
        }
        let name = String(decoding: bytes[nameStart..<index].map(Self.lower), as: UTF8.self)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ">") { index += 1; break }
            if Self.isSpace(byte) || byte == UInt8(ascii: "/") { index += 1; continue }
            let (attribute, value) = readAttribute()
            if attribute == "src" || attribute == "href", let value { found.append(value) }
        }
        if ["script", "style", "textarea", "title"].contains(name) {
            var position = index
            while let close = find("</" + name, from: position) {
                let after = close + 2 + name.utf8.count
                if after >= bytes.count || Self.isSpace(bytes[after]) || bytes[after] == UInt8(ascii: ">") || bytes[after] == UInt8(ascii: "/") {
                    index = find(">", from: after).map { $0 + 1 } ?? bytes.count
                    return
                }
                position = close + 2
            }
            index = bytes.count
        }
    }

    /// Reads `name`, `name=value`, `name="value"` or `name='value'`.
    private mutating func readAttribute() -> (name: String, value: String?) {
        let nameStart = index
        while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ">"),
            !(bytes[index] == UInt8(ascii: "/") && index > nameStart)
        {
            index += 1
        }
        if index == nameStart { index += 1 }
        let name = String(decoding: bytes[nameStart..<index].map(Self.lower), as: UTF8.self)
        var lookahead = index
        while lookahead < bytes.count, Self.isSpace(bytes[lookahead]) { lookahead += 1 }
        guard lookahead < bytes.count, bytes[lookahead] == UInt8(ascii: "=") else { return (name, nil) }
        index = lookahead + 1
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        let range: Range<Int>
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
            let quote = bytes[index]
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] != quote { end += 1 }
            range = start..<end
            index = min(bytes.count, end + 1)
        } else {
            let start = index
            while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
            range = start..<index
        }
        return (name, Self.decodeEntities(String(decoding: bytes[range], as: UTF8.self)))
    }

    private static let entities: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]

    /// Decodes the named references above and numeric ones (`&#47;`, `&#x2F;`).
    private static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let tail = rest[rest.index(after: amp)...]
            guard let semicolon = tail.prefix(10).firstIndex(of: ";") else {
                out += "&"
                rest = tail
                continue
            }
            let name = tail[..<semicolon]
            let scalar: Unicode.Scalar? =
                name.hasPrefix("#x") || name.hasPrefix("#X")
                ? UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                : name.hasPrefix("#") ? UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init) : nil
            if let replacement = scalar.map({ String(Character($0)) }) ?? entities[String(name)] {
                out += replacement
                rest = tail[tail.index(after: semicolon)...]
            } else {
                out += "&"
                rest = tail
            }
        }
        return out + rest
    }
}
