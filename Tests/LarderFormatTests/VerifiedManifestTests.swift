import LarderFormat
import Testing

/// The one place a manifest's identity is made: encoded and hashed once, or decoded strictly
/// and checked against the digest it was fetched for.
@Suite struct VerifiedManifestTests {
    static let manifest = try! Manifest(
        name: "x", entry: "index.html", renderer: Manifest.Renderer(protocolVersion: 1, capabilities: []),
        files: [
            Manifest.File(
                path: "index.html", digest: SHA256Hasher.hash(Array("<p>hi".utf8)), size: 5, mediaType: "text/html", role: .document,
                essential: true)
        ])

    @Test func aManifestMadeHereCarriesItsCanonicalBytesAndTheirDigest() throws {
        let verified = VerifiedManifest(Self.manifest)
        #expect(verified.bytes == Self.manifest.canonicalBytes)
        #expect(verified.digest == SHA256Hasher.hash(Self.manifest.canonicalBytes))
        #expect(try VerifiedManifest(decoding: verified.bytes) == verified)
        #expect(try VerifiedManifest(decoding: verified.bytes, expecting: verified.digest).manifest == Self.manifest)
    }

    @Test func bytesOfAnotherBundleAreRefusedBeforeTheyAreDecoded() {
        let other = SHA256Hasher.hash(Array("other".utf8))
        // Not even JSON: the digest is checked first, so the refusal names the digest.
        #expect { _ = try VerifiedManifest(decoding: Array("not json".utf8), expecting: other) } throws: {
            ($0 as? FormatError)?.code == .digestMismatch
        }
        #expect { _ = try VerifiedManifest(decoding: VerifiedManifest(Self.manifest).bytes, expecting: other) } throws: {
            ($0 as? FormatError)?.code == .digestMismatch
        }
    }

    @Test func fetchedBytesThatHashRightButAreNotCanonicalAreRefused() {
        // A manifest after a space is valid JSON and hashes to itself, but only the canonical
        // encoding names a bundle.
        let spaced = Array(" ".utf8) + Self.manifest.canonicalBytes
        #expect { _ = try VerifiedManifest(decoding: spaced, expecting: SHA256Hasher.hash(spaced)) } throws: {
            ($0 as? FormatError)?.code == .invalidManifest
        }
    }
}
