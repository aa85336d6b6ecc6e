import Foundation

/// Strict percent-decoding of URL paths, the one rule set for the packer (resolving a
/// document's references, `ReferenceResolver`) and the renderers (serving `larder:` URLs):
/// every `%` starts two hex digits and the decoded bytes are UTF-8. A path one accepts, the
/// others accept; anything else is an error, never decoded leniently or left as it was.
public enum URLPath {
    /// The path with its percent-escapes decoded.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/malformedURLPath`` for a `%` not
    ///   followed by two hex digits, or escapes that do not decode to UTF-8.
    public static func percentDecoded(_ text: Substring) throws(FormatError) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw malformed(text, "a '%' must start two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw malformed(text, "the escapes do not decode to UTF-8") }
        return decoded
    }

    /// The bundle path a `larder:` URL's path names: percent-decoded, NFC-normalised like
    /// manifest paths, and checked by ``BundlePath``.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/malformedURLPath`` or
    ///   ``FormatError/Code/invalidPath``.
    public static func bundlePath(decoding text: Substring) throws(FormatError) -> String {
        let decoded = try percentDecoded(text)
        let normalized = decoded.utf8.allSatisfy { $0 < 0x80 } ? decoded : decoded.precomposedStringWithCanonicalMapping
        try BundlePath.validate(normalized)
        return normalized
    }

    private static func malformed(_ text: Substring, _ reason: String) -> FormatError {
        FormatError(.malformedURLPath, "malformed percent-encoding in the path: \(reason)", url: String(text.prefix(200)))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
