/// A SHA-256 digest: the identity of every object, manifest and bundle in Larder.
///
/// Its text form is `sha256:` followed by 64 lowercase hex digits. Parsing accepts exactly that
/// form and nothing else: no other algorithm, case or length is guessed.
public struct Digest: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 32 digest bytes as four big-endian words, so hashing and comparing are cheap.
    @usableFromInline let w0, w1, w2, w3: UInt64

    /// The prefix of the text form.
    public static let prefix = "sha256:"

    /// Creates a digest from exactly 32 bytes.
    /// - Precondition: `bytes.count == 32`.
    public init<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        precondition(bytes.count == 32, "a SHA-256 digest has 32 bytes")
        var words: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in bytes.enumerated() {
            words[index / 8] = words[index / 8] << 8 | UInt64(byte)
        }
        (w0, w1, w2, w3) = (words[0], words[1], words[2], words[3])
    }

    /// Parses the text form `sha256:<64 lowercase hex>`.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/invalidDigest`` for anything else.
    public init(parsing text: String) throws(FormatError) {
        guard text.hasPrefix(Self.prefix) else {
            throw FormatError(
                .invalidDigest, "'\(text.prefix(80))' is not a digest: expected 'sha256:' and 64 lowercase hex digits")
        }
        try self.init(hex: text.dropFirst(Self.prefix.count), original: text)
    }

    /// Parses exactly 64 lowercase hex digits, the form used in file names and font URLs.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/invalidDigest`` for anything else.
    public init<S: StringProtocol>(hex: S) throws(FormatError) {
        try self.init(hex: hex, original: String(hex))
    }

    private init<S: StringProtocol>(hex: S, original: String) throws(FormatError) {
        let utf8 = hex.utf8
        guard utf8.count == 64 else {
            throw FormatError(
                .invalidDigest,
                "'\(original.prefix(80))' is not a digest: expected 64 hex digits, found \(utf8.count) characters")
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(32)
        var high: UInt8 = 0
        for (index, char) in utf8.enumerated() {
            let nibble: UInt8
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = char - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = char - UInt8(ascii: "a") + 10
            default:
                throw FormatError(
                    .invalidDigest,
                    "'\(original.prefix(80))' is not a digest: only lowercase hex digits 0-9 and a-f are allowed")
            }
            if index % 2 == 0 { high = nibble } else { bytes.append(high << 4 | nibble) }
        }
        self.init(bytes: bytes)
    }

    /// The 32 digest bytes.
    public var bytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(32)
        for word in [w0, w1, w2, w3] {
            for shift in stride(from: 56, through: 0, by: -8) { result.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return result
    }

    /// The 64 lowercase hex digits.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text form, `sha256:<hex>`.
    public var description: String { Self.prefix + hex }

    /// The Subresource-Integrity form, `sha256-<base64>`, for `integrity=` attributes.
    public var subresourceIntegrity: String { "sha256-" + Base64.encode(bytes) }

    public static func < (lhs: Digest, rhs: Digest) -> Bool {
        (lhs.w0, lhs.w1, lhs.w2, lhs.w3) < (rhs.w0, rhs.w1, rhs.w2, rhs.w3)
    }
}

/// Standard base64 with padding (RFC 4648 section 4).
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = bytes[index]
            let b1 = index + 1 < bytes.count ? bytes[index + 1] : 0
            let b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(index + 1 < bytes.count ? alphabet[Int((b1 & 0x0f) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(b2 & 0x3f)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
