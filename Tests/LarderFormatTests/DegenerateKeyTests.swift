import CCrypto
import Foundation
@testable import LarderFormat
import Testing

/// Issue 20: what libcrypto's Ed25519 (`EVP_DigestVerify`, OpenSSL 3) accepts by itself, shown
/// with forged and non-canonical inputs, and what Larder refuses on top: keys of small order
/// and non-canonical key encodings when parsed, and non-canonical signatures (S not below the
/// group order L, R not canonical or of small order).
@Suite struct DegenerateKeyTests {
    /// The identity point, canonically encoded (y = 1).
    static let identity: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)

    /// The 8 points of small order, each with its order.
    static let smallOrder = Ed25519Encoding.smallOrder

    /// Non-canonical encodings, each with the defect Larder names.
    static let nonCanonical: [(name: String, bytes: [UInt8], defect: Ed25519Encoding.Defect)] = [
        ("y = p (0)", [0xed] + [UInt8](repeating: 0xff, count: 30) + [0x7f], .nonCanonicalY),
        ("y = p + 1 (the identity)", [0xee] + [UInt8](repeating: 0xff, count: 30) + [0x7f], .nonCanonicalY),
        ("y = p + 3 (a point of large order)", [0xf0] + [UInt8](repeating: 0xff, count: 30) + [0x7f], .nonCanonicalY),
        ("y = 2^255 - 1", [UInt8](repeating: 0xff, count: 31) + [0x7f], .nonCanonicalY),
        ("y = 2^255 - 1, sign set", [UInt8](repeating: 0xff, count: 32), .nonCanonicalY),
        ("the identity with its sign bit set", [1] + [UInt8](repeating: 0, count: 30) + [0x80], .nonCanonicalSign),
        ("y = p - 1 with its sign bit set", [0xec] + [UInt8](repeating: 0xff, count: 30) + [0xff], .nonCanonicalSign),
    ]

    @Test func theAllZeroKeyIsRefusedSoTheForgeryHasNothingToVerifyAgainst() throws {
        let zero = [UInt8](repeating: 0, count: 32)
        // The forgery of the issue, R = identity and S = 0: libcrypto alone accepts it against
        // the all-zero key (order 4) for about one message in four.
        let forged = Self.identity + [UInt8](repeating: 0, count: 32)
        let accepted = (0..<256).filter { Libcrypto.verifies(key: zero, signature: forged, message: Array("message \($0)".utf8)) }
        #expect((30...100).contains(accepted.count), "\(accepted.count) of 256")
        let error = #expect(throws: FormatError.self) { try PublicKey(bytes: zero) }
        #expect(error?.code == .invalidKey)
        #expect(error?.message == "the Ed25519 public key is a point of small order (4), which would accept forged signatures; it is not a publisher's key")
        #expect(throws: FormatError.self) { try PublicKey(text: "ed25519:" + Data(zero).base64EncodedString()) }
    }

    @Test(arguments: smallOrder.indices)
    func everyKeyOfSmallOrderIsForgeableWithLibcryptoAloneAndRefused(_ index: Int) throws {
        let (key, order) = Self.smallOrder[index]
        let forged = Self.identity + [UInt8](repeating: 0, count: 32)
        let accepted = (0..<256).filter { Libcrypto.verifies(key: key, signature: forged, message: Array("m\($0)".utf8)) }.count
        #expect(accepted > 0, "order \(order): libcrypto accepted no forgery")
        if order == 1 { #expect(accepted == 256) }
        #expect(Ed25519Encoding.defect(ofPoint: key[...]) == .smallOrder(order))
        let error = #expect(throws: FormatError.self) { try PublicKey(bytes: key) }
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains(order == 1 ? "the identity point" : "small order (\(order))") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: nonCanonical.indices)
    func nonCanonicalKeyEncodingsAreRefused(_ index: Int) throws {
        let (name, bytes, defect) = Self.nonCanonical[index]
        #expect(Ed25519Encoding.defect(ofPoint: bytes[...]) == defect, "\(name)")
        let error = #expect(throws: FormatError.self) { try PublicKey(text: "ed25519:" + Data(bytes).base64EncodedString()) }
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("not a canonical encoding") == true, "\(name): \(error?.message ?? "")")
    }

    @Test func libcryptoAloneTakesANonCanonicalIdentityKeyForTheIdentity() {
        // Both non-canonical spellings of the identity verify the forgery for every message with
        // libcrypto alone: it neither reduces-and-refuses y >= p nor checks the sign of x = 0.
        let forged = Self.identity + [UInt8](repeating: 0, count: 32)
        for key in [Self.nonCanonical[1].bytes, Self.nonCanonical[5].bytes] {
            let accepted = (0..<32).filter { Libcrypto.verifies(key: key, signature: forged, message: Array("m\($0)".utf8)) }.count
            #expect(accepted == 32, "\(key.prefix(2))")
        }
    }

    @Test func realKeysAndSignaturesStillVerify() throws {
        for _ in 0..<50 {
            let key = try SigningKey.generate()
            #expect(Ed25519Encoding.defect(ofPoint: key.publicKey.bytes[...]) == nil)
            let message = Array("a message".utf8)
            let signature = try key.sign(message)
            #expect(Ed25519Encoding.signatureDefect(signature) == nil)
            #expect(key.publicKey.isValidSignature(signature, of: message))
        }
    }
}

/// Signatures libcrypto would take and Larder does not, made with a key whose scalar the test
/// knows (RFC 8032 §5.1.5: the clamped first half of SHA-512 of the seed).
@Suite struct NonCanonicalSignatureTests {
    static let seed = [UInt8](0..<32)
    static let message = Array("journey document".utf8)

    static var key: PublicKey { get throws { try PublicKey(bytes: Libcrypto.publicKey(seed: seed)) } }

    /// The secret scalar a of the seed.
    static var scalar: [UInt8] {
        var a = Array(Libcrypto.sha512(seed).prefix(32))
        a[0] &= 248
        a[31] &= 127
        a[31] |= 64
        return a
    }

    /// S = h·a mod L with h = SHA-512(R ‖ A ‖ M): with R the identity, S·B − h·A is the identity,
    /// so this "signature" verifies unless R's small order is checked.
    static func signature(r: [UInt8], key: PublicKey) -> [UInt8] {
        let h = Libcrypto.sha512(r + key.bytes + message)
        return r + Libcrypto.multiplyModL(scalar, h)
    }

    @Test func sAtOrAboveTheGroupOrderIsRefusedByLibcryptoAndByLarder() throws {
        let key = try Self.key
        let signature = try SigningKey(pem: Libcrypto.pem(seed: Self.seed)).sign(Self.message)
        #expect(key.isValidSignature(signature, of: Self.message))
        // S + L is the same scalar mod L: a second encoding of the same signature.
        let malleated = Array(signature.prefix(32)) + Libcrypto.addL(Array(signature.suffix(32)))
        #expect(!Libcrypto.verifies(key: key.bytes, signature: malleated, message: Self.message))
        #expect(Ed25519Encoding.signatureDefect(malleated) == "its S is not below the group order")
        #expect(!key.isValidSignature(malleated, of: Self.message))
        // S = L exactly is not canonical either.
        #expect(!Ed25519Encoding.isCanonicalScalar(Ed25519Encoding.groupOrder[...]))
        var belowL = Ed25519Encoding.groupOrder
        belowL[0] -= 1
        #expect(Ed25519Encoding.isCanonicalScalar(belowL[...]))
    }

    @Test func anRThatIsTheIdentityVerifiesWithLibcryptoAloneAndIsRefused() throws {
        let key = try Self.key
        let forged = Self.signature(r: DegenerateKeyTests.identity, key: key)
        #expect(Libcrypto.verifies(key: key.bytes, signature: forged, message: Self.message))
        #expect(Ed25519Encoding.signatureDefect(forged) == "its R is the identity point (of order 1)")
        #expect(!key.isValidSignature(forged, of: Self.message))
    }

    @Test func anRNotCanonicallyEncodedIsRefusedByLibcryptoAndByLarder() throws {
        let key = try Self.key
        for r in [DegenerateKeyTests.nonCanonical[1].bytes, DegenerateKeyTests.nonCanonical[5].bytes] {
            let forged = Self.signature(r: r, key: key)
            #expect(!Libcrypto.verifies(key: key.bytes, signature: forged, message: Self.message))
            #expect(Ed25519Encoding.signatureDefect(forged)?.hasPrefix("its R is not a canonical encoding") == true)
            #expect(!key.isValidSignature(forged, of: Self.message))
        }
    }

    @Test func aDocumentWithANonCanonicalSignatureDoesNotParse() throws {
        let key = try SigningKey(pem: Libcrypto.pem(seed: Self.seed))
        var document = SigningTests.document
        try document.sign(with: key)
        let signature = try #require(document.signature)
        #expect(try JourneyDocument(decoding: document.canonicalBytes) == document)
        var malleated = document
        malleated.signature?.bytes = Array(signature.bytes.prefix(32)) + Libcrypto.addL(Array(signature.bytes.suffix(32)))
        let error = #expect(throws: FormatError.self) { try JourneyDocument(decoding: malleated.canonicalBytes) }
        #expect(error?.field == "signature.ed25519")
        #expect(error?.message == "not a canonical Ed25519 signature: its S is not below the group order")
    }
}

/// libcrypto called directly, without Larder's checks.
enum Libcrypto {
    static func verifies(key: [UInt8], signature: [UInt8], message: [UInt8]) -> Bool {
        guard let pkey = key.withUnsafeBufferPointer({ EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) }) else {
            return false
        }
        defer { EVP_PKEY_free(pkey) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, pkey) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    static func publicKey(seed: [UInt8]) -> [UInt8] {
        let pkey = seed.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) }!
        defer { EVP_PKEY_free(pkey) }
        var bytes = [UInt8](repeating: 0, count: 32)
        var length = 32
        precondition(EVP_PKEY_get_raw_public_key(pkey, &bytes, &length) == 1)
        return bytes
    }

    static func pem(seed: [UInt8]) -> [UInt8] {
        let pkey = seed.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) }!
        defer { EVP_PKEY_free(pkey) }
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        precondition(PEM_write_bio_PrivateKey(bio, pkey, nil, nil, 0, nil, nil) == 1)
        var output = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        precondition(BIO_read(bio, &output, Int32(output.count)) == output.count)
        return output
    }

    static func sha512(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        precondition(EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha512(), nil) == 1 && length == 64)
        return digest
    }

    /// (a · h) mod L, little-endian in and out.
    static func multiplyModL(_ a: [UInt8], _ h: [UInt8]) -> [UInt8] {
        withNumbers(a, h) { a, h, l, result, context in BN_mod_mul(result, a, h, l, context) }
    }

    /// s + L, little-endian (below 2^256 for any s below L).
    static func addL(_ s: [UInt8]) -> [UInt8] {
        withNumbers(s, [0]) { s, _, l, result, _ in BN_add(result, s, l) }
    }

    private static func withNumbers(
        _ x: [UInt8], _ y: [UInt8], _ body: (OpaquePointer, OpaquePointer, OpaquePointer, OpaquePointer, OpaquePointer) -> Int32
    ) -> [UInt8] {
        let context = BN_CTX_new()!
        defer { BN_CTX_free(context) }
        let numbers = [x, y, Ed25519Encoding.groupOrder].map { bytes in
            bytes.withUnsafeBufferPointer { BN_lebin2bn($0.baseAddress, Int32($0.count), nil)! }
        }
        let result = BN_new()!
        defer { for number in numbers + [result] { BN_free(number) } }
        precondition(body(numbers[0], numbers[1], numbers[2], result, context) == 1)
        var output = [UInt8](repeating: 0, count: 32)
        precondition(BN_bn2lebinpad(result, &output, 32) == 32)
        return output
    }
}
