#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the URLs an HTML document uses: `src`, `srcset`, `poster`, `href` (on `<link>` as a
/// resource when its `rel` loads something, as a connection hint for `preconnect` and
/// `dns-prefetch`, on `<a>` and `<area>` as navigation), `<style>`
/// blocks and `style=` attributes through ``CSSScanner``. Comments, `<script>` bodies and other
/// raw text are skipped; attribute values have their character references decoded.
package struct HTMLScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private(set) var references: [Reference] = []
    /// The `@font-face` rules of its `<style>` blocks (from `@` through `}`).
    private(set) var fontFaceRules: [Range<Int>] = []
    /// The current tag's attributes, reused from tag to tag.
    private var attributes: [Attribute] = []

    package static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> [Reference] {
        var scanner = HTMLScanner(bytes: bytes)
        scanner.run()
        return scanner.references
    }

    /// The references, and the byte ranges of the `@font-face` rules of its `<style>` blocks.
    package static func scanWithFontFaces(_ bytes: UnsafeBufferPointer<UInt8>) -> (references: [Reference], fontFaceRules: [Range<Int>]) {
        var scanner = HTMLScanner(bytes: bytes)
        scanner.run()
        return (scanner.references, scanner.fontFaceRules)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The attribute names the scanner acts on; any other is `other`, and its value is never
    /// decoded.
    private enum AttributeName {
        case src, poster, data, srcset, imagesrcset, href, style, rel, `as`, other
    }

    /// The tags whose name changes what is done with them.
    private enum TagName {
        case link, a, area, object, style, script, textarea, title, xmp, noembed, noframes, other

        /// The end tag that closes its raw text, for the elements whose content is not markup.
        var rawTextName: StaticString? {
            switch self {
            case .script: "script"
            case .textarea: "textarea"
            case .title: "title"
            case .xmp: "xmp"
            case .noembed: "noembed"
            case .noframes: "noframes"
            case .style: "style"
            default: nil
            }
        }
    }

    private struct Attribute {
        var name: AttributeName
        var value: String
        var valueOffset: Int
        var valueRange: Range<Int>
        var decodedExactly: Bool
    }

    private mutating func run() {
        while index < bytes.count {
            // memchr: most of a document is text between tags.
            guard let found = memchr(bytes.baseAddress! + index, Int32(UInt8(ascii: "<")), bytes.count - index) else {
                index = bytes.count
                break
            }
            index = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - bytes.baseAddress!
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

    /// Whether `bytes[range]`, lowercased, is `text`.
    private func range(_ range: Range<Int>, isLowercase text: StaticString) -> Bool {
        range.count == text.utf8CodeUnitCount && startsWith(text, at: range.lowerBound, caseInsensitive: true)
    }

    private func tagName(_ range: Range<Int>) -> TagName {
        switch range.count {
        case 1: if self.range(range, isLowercase: "a") { return .a }
        case 3: if self.range(range, isLowercase: "xmp") { return .xmp }
        case 4:
            if self.range(range, isLowercase: "link") { return .link }
            if self.range(range, isLowercase: "area") { return .area }
        case 5:
            if self.range(range, isLowercase: "style") { return .style }
            if self.range(range, isLowercase: "title") { return .title }
        case 6:
            if self.range(range, isLowercase: "object") { return .object }
            if self.range(range, isLowercase: "script") { return .script }
        case 7: if self.range(range, isLowercase: "noembed") { return .noembed }
        case 8:
            if self.range(range, isLowercase: "textarea") { return .textarea }
            if self.range(range, isLowercase: "noframes") { return .noframes }
        default: break
        }
        return .other
    }

    private func attributeName(_ range: Range<Int>) -> AttributeName {
        switch range.count {
        case 2: if self.range(range, isLowercase: "as") { return .as }
        case 3:
            if self.range(range, isLowercase: "src") { return .src }
            if self.range(range, isLowercase: "rel") { return .rel }
        case 4:
            if self.range(range, isLowercase: "href") { return .href }
            if self.range(range, isLowercase: "data") { return .data }
        case 5: if self.range(range, isLowercase: "style") { return .style }
        case 6:
            if self.range(range, isLowercase: "poster") { return .poster }
            if self.range(range, isLowercase: "srcset") { return .srcset }
        case 11: if self.range(range, isLowercase: "imagesrcset") { return .imagesrcset }
        default: break
        }
        return .other
    }

    private mutating func readTag() {
        index += 1
        let nameStart = index
        while index < bytes.count, !isASCIIWhitespace(bytes[index]), bytes[index] != UInt8(ascii: ">"),
            bytes[index] != UInt8(ascii: "/")
        {
            index += 1
        }
        let name = tagName(nameStart..<index)
        attributes.removeAll(keepingCapacity: true)
        var selfClosing = false
        while index < bytes.count {
            let byte = bytes[index]
            if isASCIIWhitespace(byte) { index += 1; continue }
            if byte == UInt8(ascii: ">") { index += 1; break }
            if byte == UInt8(ascii: "/") { selfClosing = true; index += 1; continue }
            selfClosing = false
            if let attribute = readAttribute() { attributes.append(attribute) }
        }
        if !attributes.isEmpty { handle(tag: name) }
        guard !selfClosing, let rawText = name.rawTextName else { return }
        let contentStart = index
        skipRawText(until: rawText)
        if name == .style {
            let contentEnd = min(contentStartOfClosingTag ?? index, bytes.count)
            let found = CSSScanner.scanWithFontFaces(bytes, range: contentStart..<max(contentStart, contentEnd))
            references += found.references
            fontFaceRules += found.fontFaceRules
        }
    }

    private var contentStartOfClosingTag: Int?

    private mutating func skipRawText(until tag: StaticString) {
        var position = index
        let length = tag.utf8CodeUnitCount
        while let found = find("</", from: position) {
            let nameStart = found + 2
            if nameStart + length <= bytes.count, startsWith(tag, at: nameStart, caseInsensitive: true) {
                contentStartOfClosingTag = found
                index = find(">", from: nameStart).map { $0 + 1 } ?? bytes.count
                return
            }
            position = found + 2
        }
        contentStartOfClosingTag = bytes.count
        index = bytes.count
    }

    /// Reads one attribute; nil for one the scanner does not act on (its value is skipped,
    /// never decoded).
    private mutating func readAttribute() -> Attribute? {
        let nameStart = index
        while index < bytes.count, !isASCIIWhitespace(bytes[index]), bytes[index] != UInt8(ascii: "="),
            bytes[index] != UInt8(ascii: ">"), !(bytes[index] == UInt8(ascii: "/") && index > nameStart)
        {
            index += 1
        }
        if index == nameStart { index += 1 }
        let name = attributeName(nameStart..<index)
        var lookahead = index
        while lookahead < bytes.count, isASCIIWhitespace(bytes[lookahead]) { lookahead += 1 }
        guard lookahead < bytes.count, bytes[lookahead] == UInt8(ascii: "=") else {
            return name == .other ? nil : Attribute(name: name, value: "", valueOffset: index, valueRange: index..<index, decodedExactly: true)
        }
        index = lookahead + 1
        while index < bytes.count, isASCIIWhitespace(bytes[index]) { index += 1 }
        let valueRange: Range<Int>
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") {
            let quote = bytes[index]
            let start = index + 1
            let end: Int
            if start < bytes.count, let found = memchr(bytes.baseAddress! + start, Int32(quote), bytes.count - start) {
                end = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - bytes.baseAddress!
            } else {
                end = bytes.count
            }
            valueRange = start..<end
            index = min(bytes.count, end + 1)
        } else {
            let start = index
            while index < bytes.count, !isASCIIWhitespace(bytes[index]), bytes[index] != UInt8(ascii: ">") { index += 1 }
            valueRange = start..<index
        }
        guard name != .other else { return nil }
        let (decoded, exact) = HTMLEntities.decodeNoting(UnsafeBufferPointer(rebasing: bytes[valueRange]))
        return Attribute(name: name, value: decoded, valueOffset: valueRange.lowerBound, valueRange: valueRange, decodedExactly: exact)
    }

    private static let loadingRels: Set<String> = [
        "stylesheet", "preload", "modulepreload", "icon", "shortcut", "apple-touch-icon", "apple-touch-icon-precomposed",
        "mask-icon", "manifest", "prefetch",
    ]

    private mutating func handle(tag: TagName) {
        let rel = attributes.first { $0.name == .rel }?.value ?? ""
        for attribute in attributes {
            switch attribute.name {
            case .src, .poster:
                add(attribute, .resource)
            case .data where tag == .object:
                add(attribute, .resource)
            case .srcset, .imagesrcset:
                for candidate in Self.srcsetURLs(attribute.value) {
                    add(candidate.url, .resource, at: attribute.valueOffset + (attribute.decodedExactly ? candidate.offset : 0))
                }
            case .href:
                switch tag {
                case .link:
                    let rels = rel.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                    let loads = rels.contains { Self.loadingRels.contains(String($0)) || $0.hasSuffix("icon") }
                    let destination = attributes.first { $0.name == .as }?.value.lowercased()
                    if rels.contains("preconnect") || rels.contains("dns-prefetch") {
                        add(attribute, loads ? .resource : .connectionHint)
                    } else if rels.contains("preload"), destination == "font", attribute.decodedExactly {
                        references.append(
                            Reference(
                                url: attribute.value, kind: .fontPreload, offset: attribute.valueOffset, replaceRange: attribute.valueRange))
                    } else {
                        add(attribute, loads ? .resource : .navigation)
                    }
                case .a, .area:
                    add(attribute, .navigation)
                default:
                    continue
                }
            case .style:
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

    /// The decoded value, and whether its bytes are exactly the raw bytes: no character
    /// reference, and no invalid UTF-8 (decoding replaces it with U+FFFD, three bytes), so
    /// offsets within the value are offsets within the document.
    static func decodeNoting(_ raw: UnsafeBufferPointer<UInt8>) -> (value: String, exact: Bool) {
        guard raw.contains(UInt8(ascii: "&")) else {
            if let valid = String(validating: raw, as: UTF8.self) { return (valid, true) }
            return (String(decoding: raw, as: UTF8.self), false)
        }
        let decoded = decode(raw)
        return (decoded, decoded.utf8.elementsEqual(raw))
    }

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
