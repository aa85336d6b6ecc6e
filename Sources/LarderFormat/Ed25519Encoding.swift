/// What RFC 8032 leaves to the verifier about the 32-byte encodings in an Ed25519 key or
/// signature, checked with a few byte comparisons (no curve arithmetic), as libsodium does.
///
/// What libcrypto's `EVP_DigestVerify` (OpenSSL 3.0 on Debian 12) does by itself, as
/// `DegenerateKeyTests` and `NonCanonicalSignatureTests` show: it refuses a signature whose S
/// is not below the group order L, and an R that is not the canonical encoding of the point it
/// computes (it compares bytes); it accepts keys of small order (against the all-zero key, of
/// order 4, the "signature" R = identity, S = 0 verifies for one message in four; against the
/// identity, for every message), non-canonical spellings of a key (y = p + 1, or x = 0 with its
/// sign bit set, both read as the identity), and an R of small order (the identity, with
/// S = h·a). Larder refuses all of these: keys when they are made, signatures before libcrypto
/// sees them.
enum Ed25519Encoding {
    /// Why 32 bytes are not acceptable as a point.
    enum Defect: Equatable, CustomStringConvertible {
        /// The y coordinate (the low 255 bits) is not below p = 2^255 - 19.
        case nonCanonicalY
        /// x is 0 (y is 1 or p - 1), so its sign bit must be 0.
        case nonCanonicalSign
        /// One of the 8 points whose order divides 8 (the identity among them).
        case smallOrder(Int)

        var description: String {
            switch self {
            case .nonCanonicalY: "not a canonical encoding (its y coordinate is not below 2^255 - 19)"
            case .nonCanonicalSign: "not a canonical encoding (x is 0, yet its sign bit is set)"
            case .smallOrder(1): "the identity point (of order 1)"
            case .smallOrder(let order): "a point of small order (\(order))"
            }
        }
    }

    /// The canonical encodings of the 8 points of order dividing 8, and their orders: the
    /// identity (y = 1), the point of order 2 (y = p - 1), the two of order 4 (y = 0) and the four
    /// of order 8 (y = ±2707385501144840649318225287225658788936804267575313519463743609750303402022
    /// mod p, each with both signs of x). libsodium keeps the same list (`ge25519_has_small_order`).
    static let smallOrder: [(encoding: [UInt8], order: Int)] = {
        func bytes(_ hex: String) -> [UInt8] {
            var result: [UInt8] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                result.append(UInt8(hex[index..<next], radix: 16)!)
                index = next
            }
            return result
        }
        let y8 = "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc"
        let minusY8 = "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03"
        return [
            (bytes("01" + String(repeating: "00", count: 31)), 1),
            (bytes("ec" + String(repeating: "ff", count: 30) + "7f"), 2),
            (bytes(String(repeating: "00", count: 32)), 4),
            (bytes(String(repeating: "00", count: 31) + "80"), 4),
            (bytes(y8 + "05"), 8), (bytes(y8 + "85"), 8),
            (bytes(minusY8 + "7a"), 8), (bytes(minusY8 + "fa"), 8),
        ]
    }()

    /// The group order L = 2^252 + 27742317777372353535851937790883648493, little-endian.
    static let groupOrder: [UInt8] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ]

    /// Why the 32 bytes `point` are not the canonical encoding of a point of large order; nil
    /// when they may be one (whether they decode to a point at all is left to libcrypto).
    static func defect(ofPoint point: ArraySlice<UInt8>) -> Defect? {
        precondition(point.count == 32)
        let bytes = Array(point)
        let last = bytes[31] & 0x7f
        if last == 0x7f, bytes[1..<31].allSatisfy({ $0 == 0xff }), bytes[0] >= 0xed { return .nonCanonicalY }
        if bytes[31] & 0x80 != 0, bytes[1..<31].allSatisfy({ $0 == 0 }) || bytes[1..<31].allSatisfy({ $0 == 0xff }) {
            // y = 1 or y = p - 1 with the sign bit set: x = 0 has no negative.
            var y = bytes
            y[31] &= 0x7f
            if y == smallOrder[0].encoding || y == smallOrder[1].encoding { return .nonCanonicalSign }
        }
        if let entry = smallOrder.first(where: { $0.encoding == bytes }) { return .smallOrder(entry.order) }
        return nil
    }

    /// Why a 64-byte signature is not canonical (RFC 8032 §5.1.7): its R not the canonical
    /// encoding of a point of large order, or its S not below the group order L; nil when it
    /// is canonical. libsodium refuses the same (`crypto_sign_verify_detached`).
    static func signatureDefect(_ signature: [UInt8]) -> String? {
        precondition(signature.count == 64)
        if let defect = defect(ofPoint: signature[0..<32]) { return "its R is \(defect)" }
        if !isCanonicalScalar(signature[32..<64]) { return "its S is not below the group order" }
        return nil
    }

    /// Whether the 32-byte little-endian scalar `scalar` is below the group order L (RFC 8032
    /// §5.1.7: a signature's S must be).
    static func isCanonicalScalar(_ scalar: ArraySlice<UInt8>) -> Bool {
        precondition(scalar.count == 32)
        for (byte, limit) in zip(scalar.reversed(), groupOrder.reversed()) where byte != limit {
            return byte < limit
        }
        return false  // equal to L
    }
}
