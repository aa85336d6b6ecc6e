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
        var text = text
        let parsed: Result<Digest, FormatError> = text.withUTF8 { utf8 in
            guard utf8.starts(with: Self.prefix.utf8) else {
                return .failure(FormatError(
                    .invalidDigest, "'\(String(decoding: utf8.prefix(80), as: UTF8.self))' is not a digest: expected 'sha256:' and 64 lowercase hex digits"))
            }
            do throws(FormatError) {
                return .success(
                    try Digest(hex: UnsafeBufferPointer(rebasing: utf8[7...]), original: String(decoding: utf8, as: UTF8.self)))
            } catch {
                return .failure(error)
            }
        }
        self = try parsed.get()
    }

    /// Parses 64 lowercase hex digits given as UTF-8 bytes.
    public init(hexUTF8 utf8: UnsafeBufferPointer<UInt8>) throws(FormatError) {
        try self.init(hex: utf8, original: String(decoding: utf8, as: UTF8.self))
    }

    /// Parses exactly 64 lowercase hex digits, the form used in file names and font URLs.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/invalidDigest`` for anything else.
    public init<S: StringProtocol>(hex: S) throws(FormatError) {
        var text = String(hex)
        let parsed: Result<Digest, FormatError> = text.withUTF8 { utf8 in
            do throws(FormatError) { return .success(try Digest(hexUTF8: utf8)) } catch { return .failure(error) }
        }
        self = try parsed.get()
    }

    private init(hex utf8: UnsafeBufferPointer<UInt8>, original: @autoclosure () -> String) throws(FormatError) {
        guard utf8.count == 64 else {
            throw FormatError(
                .invalidDigest,
                "'\(original().prefix(80))' is not a digest: expected 64 hex digits, found \(utf8.count) characters")
        }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var index = 0
        for char in utf8 {
            let nibble: UInt64
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt64(char &- UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt64(char &- UInt8(ascii: "a") &+ 10)
            default:
                throw FormatError(
                    .invalidDigest,
                    "'\(original().prefix(80))' is not a digest: only lowercase hex digits 0-9 and a-f are allowed")
            }
            switch index >> 4 {
            case 0: words.0 = words.0 << 4 | nibble
            case 1: words.1 = words.1 << 4 | nibble
            case 2: words.2 = words.2 << 4 | nibble
            default: words.3 = words.3 << 4 | nibble
            }
            index += 1
        }
        (w0, w1, w2, w3) = words
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
        String(unsafeUninitializedCapacity: 64) { buffer in
            var index = 0
            for word in [w0, w1, w2, w3] {
                for shift in stride(from: 60, through: 0, by: -4) {
                    let nibble = UInt8(truncatingIfNeeded: word >> UInt64(shift)) & 0x0f
                    buffer[index] = nibble < 10 ? nibble &+ 48 : nibble &+ 87
                    index += 1
                }
            }
            return 64
        }
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

