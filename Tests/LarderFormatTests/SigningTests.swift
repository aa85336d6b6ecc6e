import Foundation
import LarderFormat
import Testing

/// Ed25519 keys and signed journey documents (issue 15), on libcrypto.
@Suite struct SigningTests {
    static let document = JourneyDocument(
        journey: "onboarding", revision: 7, bundle: try! Digest(parsing: "sha256:" + String(repeating: "ab", count: 32)), refresh: 600,
        published: "2026-11-30T12:00:00Z", expires: "2026-12-07T12:00:00Z")

    @Test func aKeyPairSurvivesItsPEMAndTextForms() throws {
        let key = try SigningKey.generate()
        let pem = try key.pem()
        #expect(String(decoding: pem, as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let reread = try SigningKey(pem: pem)
        #expect(reread.publicKey == key.publicKey)
        let text = key.publicKey.description
        #expect(text.hasPrefix("ed25519:") && text.count == 8 + 44)
        #expect(try PublicKey(text: " \(text)\n") == key.publicKey)
        #expect(key.publicKey.id.count == 16)
        #expect(key.publicKey.id == String(SHA256Hasher.hash(key.publicKey.bytes).hex.prefix(16)))
        #expect(try SigningKey.generate().publicKey != key.publicKey)
    }

    @Test func aSignatureVerifiesOnlyForItsKeyAndItsBytes() throws {
        let key = try SigningKey.generate()
        var document = Self.document
        try document.sign(with: key)
        let signature = try #require(document.signature)
        #expect(signature.keyID == key.publicKey.id)
        #expect(key.publicKey.isValidSignature(signature.bytes, of: document.signedBytes))
        // Deterministic (RFC 8032): signing again gives the same bytes.
        var again = Self.document
        try again.sign(with: key)
        #expect(again == document)

        let other = try SigningKey.generate()
        #expect(!other.publicKey.isValidSignature(signature.bytes, of: document.signedBytes))
        var changed = document
        changed.revision = 6
        #expect(!key.publicKey.isValidSignature(signature.bytes, of: changed.signedBytes))
        #expect(!key.publicKey.isValidSignature(Array(signature.bytes.dropLast()), of: document.signedBytes))
    }

    @Test func aSignedDocumentRoundTripsAndTheSignatureCoversEveryOtherField() throws {
        let key = try SigningKey.generate()
        var document = Self.document
        try document.sign(with: key)
        let parsed = try JourneyDocument(decoding: document.canonicalBytes)
        #expect(parsed == document)
        #expect(parsed.canonicalBytes == document.canonicalBytes)
        let signed = String(decoding: document.signedBytes, as: UTF8.self)
        for field in ["journey", "revision", "bundle", "refresh", "published", "expires"] { #expect(signed.contains("\"\(field)\"")) }
        #expect(!signed.contains("signature"))
        // An unsigned document keeps its old form: nothing new appears.
        let plain = JourneyDocument(journey: "j", revision: 1, bundle: Self.document.bundle, refresh: 600, published: "2026-11-30T12:00:00Z")
        #expect(plain.canonicalBytes == plain.signedBytes)
        #expect(!String(decoding: plain.canonicalBytes, as: UTF8.self).contains("expires"))
    }

    @Test(arguments: [
        ("", "a public key reads"),
        ("rsa:AAAA", "a public key reads"),
        ("ed25519:not base64!", "not canonical base64"),
        ("ed25519:AAAA", "32 bytes, not 3"),
        // 32 bytes whose last character carries unused bits: the same bytes, another text.
        ("ed25519:" + String(repeating: "A", count: 42) + "B=", "not canonical base64"),
    ])
    func badPublicKeyTextIsATypedError(_ text: String, _ message: String) {
        let error = #expect(throws: FormatError.self) { try PublicKey(text: text) }
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test func aPEMThatIsNotAnEd25519PrivateKeyIsATypedError() throws {
        for bytes in [[UInt8](), Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8), Array("hello".utf8)] {
            let error = #expect(throws: FormatError.self) { try SigningKey(pem: bytes) }
            #expect(error?.code == .invalidKey)
        }
        // A real private key of another kind (P-256), written by the openssl tool.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("larder-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", folder + "/ec.pem"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let error = #expect(throws: FormatError.self) { try SigningKey(pem: [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/ec.pem")))) }
        #expect(error?.code == .invalidKey)
        #expect(error?.message.contains("not an Ed25519 key") == true)
    }

    @Test(arguments: [
        (#"{"ed25519":"AAAA","key":"k"}"#, "signature.ed25519"),
        (#"{"key":"k"}"#, "signature"),
        (#""text""#, "signature"),
        (#"{"ed25519":"\#(String(repeating: "A", count: 86))==","key":"k","extra":1}"#, "signature"),
    ])
    func aMalformedSignatureFieldIsRefusedByTheParser(_ signature: String, _ field: String) {
        var text = String(decoding: Self.document.canonicalBytes, as: UTF8.self)
        text.removeLast()
        text += #","signature":\#(signature)}"#
        let error = #expect(throws: FormatError.self) { try JourneyDocument(decoding: Array(text.utf8)) }
        #expect(error?.field == field, "\(String(describing: error))")
    }
}
