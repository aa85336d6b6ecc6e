/// Finds the URLs an HTML document uses: `src`, `srcset`, `poster`, `href` (on `<link>` as a
/// resource when its `rel` loads something, on `<a>` and `<area>` as navigation), `<style>`
/// blocks and `style=` attributes through ``CSSScanner``. Comments, `<script>` bodies and other
/// raw text are skipped; attribute values have their character references decoded.
package struct HTMLScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private(set) var references: [Reference] = []

    package static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> [Reference] {
        var scanner = HTMLScanner(bytes: bytes)
        scanner.run()
        return scanner.references
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private struct Attribute {
        var name: [UInt8]
        var value: String
        var valueOffset: Int
        var valueRange: Range<Int>
        var decodedExactly: Bool
    }

    private mutating func run() {
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            if startsWith("<!--") {
                index = find("-->", from: index + 4).map { $0 + 3 } ?? bytes.count
            } else if startsWith("<!") || startsWith("<?") || startsWith("</") {
                index = find(">", from: index + 2).map { $0 + 1 } ?? bytes.count
            } else if index + 1 < bytes.count, isLetter(bytes[index + 1]) {
                readTag()
            } else {
                index += 1
            }
        }
    }

    private func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    private func startsWith(_ text: StaticString, at position: Int? = nil, caseInsensitive: Bool = false) -> Bool {
        let start = position ?? index
        let count = text.utf8CodeUnitCount
        guard start + count <= bytes.count else { return false }
        for offset in 0..<count {
            let byte = caseInsensitive ? asciiLower(bytes[start + offset]) : bytes[start + offset]
            if byte != text.utf8Start[offset] { return false }
        }
        return true
    }

    private func find(_ text: StaticString, from start: Int, caseInsensitive: Bool = false) -> Int? {
        var position = start
        while position < bytes.count {
            if bytes[position] == text.utf8Start[0] || (caseInsensitive && asciiLower(bytes[position]) == text.utf8Start[0]),
                startsWith(text, at: position, caseInsensitive: caseInsensitive)
            {
                return position
            }
            position += 1
        }
        return nil
    }

    private mutating func readTag() {
        index += 1
        let nameStart = index
        while index < bytes.count, !isASCIIWhitespace(bytes[index]), bytes[index] != UInt8(ascii: ">"),
            bytes[index] != UInt8(ascii: "/")
        {
            index += 1
        }
        let name = String(decoding: bytes[nameStart..<index].map(asciiLower), as: UTF8.self)
        var attributes: [Attribute] = []
        var selfClosing = false
        while index < bytes.count {
            let byte = bytes[index]
            if isASCIIWhitespace(byte) { index += 1; continue }
            if byte == UInt8(ascii: ">") { index += 1; break }
            if byte == UInt8(ascii: "/") { selfClosing = true; index += 1; continue }
            selfClosing = false
            attributes.append(readAttribute())
        }
        handle(tag: name, attributes: attributes)
        guard !selfClosing else { return }
        switch name {
        case "script", "textarea", "title", "xmp", "noembed", "noframes":
            skipRawText(until: name)
        case "style":
            let contentStart = index
            skipRawText(until: name)
            let contentEnd = min(contentStartOfClosingTag ?? index, bytes.count)
            references += CSSScanner.scan(bytes, range: contentStart..<max(contentStart, contentEnd))
        default:
            break
        }
    }

    private var contentStartOfClosingTag: Int?

    private mutating func skipRawText(until tag: String) {
        var position = index
        while let found = find("</", from: position) {
            let nameStart = found + 2
            let candidate = bytes[nameStart..<min(bytes.count, nameStart + tag.utf8.count)].map(asciiLower)
            if candidate.elementsEqual(tag.utf8) {
                contentStartOfClosingTag = found
                index = find(">", from: nameStart).map { $0 + 1 } ?? bytes.count
                return
            }
            position = found + 2
        }
        contentStartOfClosingTag = bytes.count
        index = bytes.count
    }

    private mutating func readAttribute() -> Attribute {
        let nameStart = index
        while index < bytes.count, !isASCIIWhitespace(bytes[index]), bytes[index] != UInt8(ascii: "="),
            bytes[index] != UInt8(ascii: ">"), !(bytes[index] == UInt8(ascii: "/") && index > nameStart)
        {
            index += 1
        }
        if index == nameStart { index += 1 }
        let name = bytes[nameStart..<index].map(asciiLower)
        var lookahead = index
        while lookahead < bytes.count, isASCIIWhitespace(bytes[lookahead]) { lookahead += 1 }
        guard lookahead < bytes.count, bytes[lookahead] == UInt8(ascii: "=") else {
            return Attribute(name: name, value: "", valueOffset: index, valueRange: index..<index, decodedExactly: true)
        }
        index = lookahead + 1
        while index < bytes.count, isASCIIWhitespace(bytes[index]) { index += 1 }
        let valueRange: Range<Int>
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
            let quote = bytes[index]
            let start = index + 1
            var end = start
            while end < bytes.count, bytes[end] != quote { end += 1 }
            valueRange = start..<end
            index = min(bytes.count, end + 1)
        } else {
            let start = index
            while index < bytes.count, !isASCIIWhitespace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
            valueRange = start..<index
        }
        let raw = UnsafeBufferPointer(rebasing: bytes[valueRange])
        let decoded = HTMLEntities.decode(raw)
        // Exact only when the value's bytes are the raw bytes: no character reference, and no
        // invalid UTF-8 (decoding replaces it with U+FFFD, three bytes), so offsets within the
        // value are offsets within the document.
        return Attribute(
            name: name, value: decoded, valueOffset: valueRange.lowerBound, valueRange: valueRange,
            decodedExactly: decoded.utf8.elementsEqual(raw))
    }

    private static let loadingRels: Set<String> = [
        "stylesheet", "preload", "modulepreload", "icon", "shortcut", "apple-touch-icon", "apple-touch-icon-precomposed",
        "mask-icon", "manifest", "prefetch",
    ]

    private mutating func handle(tag: String, attributes: [Attribute]) {
        let rel = attributes.first { $0.name.elementsEqual("rel".utf8) }?.value ?? ""
        for attribute in attributes {
            let name = String(decoding: attribute.name, as: UTF8.self)
            switch name {
            case "src", "poster":
                add(attribute, .resource)
            case "data" where tag == "object":
                add(attribute, .resource)
            case "srcset", "imagesrcset":
                for candidate in Self.srcsetURLs(attribute.value) {
                    add(candidate.url, .resource, at: attribute.valueOffset + (attribute.decodedExactly ? candidate.offset : 0))
                }
            case "href":
                switch tag {
                case "link":
                    let rels = rel.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                    let loads = rels.contains { Self.loadingRels.contains(String($0)) || $0.hasSuffix("icon") }
                    let destination = attributes.first { $0.name.elementsEqual("as".utf8) }?.value.lowercased()
                    if rels.contains("preload"), destination == "font", attribute.decodedExactly {
                        references.append(
                            Reference(
                                url: attribute.value, kind: .fontPreload, offset: attribute.valueOffset, replaceRange: attribute.valueRange))
                    } else {
                        add(attribute, loads ? .resource : .navigation)
                    }
                case "a", "area":
                    add(attribute, .navigation)
                default:
                    continue
                }
            case "style":
                if attribute.decodedExactly {
                    references += CSSScanner.scan(bytes, range: attribute.valueRange).map {
                        var reference = $0
                        reference.replaceRange = nil
                        if reference.kind == .fontSource { reference.kind = .resource }
                        return reference
                    }
                } else {
                    let value = Array(attribute.value.utf8)
                    let found = value.withUnsafeBufferPointer { CSSScanner.scan($0) }
                    for reference in found { add(reference.url, .resource, at: attribute.valueOffset) }
                }
            default:
                continue
            }
        }
    }

    private mutating func add(_ url: String, _ kind: Reference.Kind, at offset: Int) {
        references.append(Reference(url: url, kind: kind, offset: offset, replaceRange: nil))
    }

    /// A whole attribute value as one reference, with its range when the value's bytes are
    /// the URL's (so the packer can rewrite a reference to a font file in place).
    private mutating func add(_ attribute: Attribute, _ kind: Reference.Kind) {
        references.append(
            Reference(
                url: attribute.value, kind: kind, offset: attribute.valueOffset,
                replaceRange: attribute.decodedExactly ? attribute.valueRange : nil))
    }

    /// The URLs of a `srcset` list ("a.png 1x, b.png 2x") and their offsets in it.
    static func srcsetURLs(_ value: String) -> [(url: String, offset: Int)] {
        let bytes = Array(value.utf8)
        var results: [(String, Int)] = []
        var index = 0
        while index < bytes.count {
            while index < bytes.count, isASCIIWhitespace(bytes[index]) || bytes[index] == UInt8(ascii: ",") { index += 1 }
            let start = index
            while index < bytes.count, !isASCIIWhitespace(bytes[index]) { index += 1 }
            var end = index
            // A URL may end with commas that separate candidates when no descriptor follows.
            while end > start, bytes[end - 1] == UInt8(ascii: ",") { end -= 1 }
            if end > start { results.append((String(decoding: bytes[start..<end], as: UTF8.self), start)) }
            if end < index { continue }
            while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
        }
        return results
    }
}

/// Decodes HTML character references in attribute values: the common named ones and numeric.
enum HTMLEntities {
    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
    ]

    static func decode(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        var index = 0
        while index < raw.count {
            guard raw[index] == UInt8(ascii: "&"), let semicolon = raw[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                out.append(raw[index])
                index += 1
                continue
            }
            let name = String(decoding: raw[(index + 1)..<semicolon], as: UTF8.self)
            var replacement: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                replacement = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if name.hasPrefix("#") {
                replacement = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                replacement = named[name]
            }
            if let replacement {
                out.append(contentsOf: replacement.utf8)
                index = semicolon + 1
            } else {
                out.append(raw[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
