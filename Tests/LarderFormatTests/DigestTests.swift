import Testing
@testable import LarderFormat

@Suite struct DigestTests {
    static let abc = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    @Test func hashesKnownVectors() {
        #expect(SHA256Hasher.hash(Array("abc".utf8)).description == Self.abc)
        #expect(
            SHA256Hasher.hash([UInt8]()).description
                == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func streamingMatchesOneShot() {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let hasher = SHA256Hasher()
        for chunk in stride(from: 0, to: bytes.count, by: 777) {
            hasher.update(Array(bytes[chunk..<min(bytes.count, chunk + 777)]))
        }
        #expect(hasher.finalize() == SHA256Hasher.hash(bytes))
        // finalize resets, so the hasher can be reused.
        hasher.update(Array("abc".utf8))
        #expect(hasher.finalize().description == Self.abc)
    }

    @Test func parsesAndPrintsTheTextForm() throws {
        let digest = try Digest(parsing: Self.abc)
        #expect(digest.description == Self.abc)
        #expect(digest.hex == String(Self.abc.dropFirst(7)))
        #expect(try Digest(hex: digest.hex) == digest)
        #expect(digest.bytes.count == 32)
    }

    @Test func subresourceIntegrityForm() throws {
        #expect(try Digest(parsing: Self.abc).subresourceIntegrity == "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
    }

    @Test(arguments: [
        "",
        "sha256:",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",  // no algorithm
        "SHA256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "sha256:BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD",  // uppercase
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a",  // 63 digits
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad0",  // 65 digits
        "sha512:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "sha1:a9993e364706816aba3e25717850c26c9cd0d89d",
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015zz",
        " sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=",
    ])
    func rejectsAnythingElse(_ text: String) {
        #expect(throws: FormatError.self) { try Digest(parsing: text) }
        do throws(FormatError) { _ = try Digest(parsing: text) } catch { #expect(error.code == .invalidDigest) }
    }
}
