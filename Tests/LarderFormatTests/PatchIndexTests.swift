import LarderFormat
import Testing

struct PatchIndexTests {
    static let a = Digest(bytes: [UInt8](repeating: 1, count: 32))
    static let b = Digest(bytes: [UInt8](repeating: 2, count: 32))
    static let c = Digest(bytes: [UInt8](repeating: 3, count: 32))

    @Test func roundTripsCanonicallyAndSorted() throws {
        let index = PatchIndex(entries: [
            .init(from: Self.b, fromSize: 9, to: Self.c, patch: Self.a, size: 4), .init(from: Self.a, fromSize: 8, to: Self.c, patch: Self.b, size: 5),
        ])
        let decoded = try PatchIndex(decoding: index.bytes)
        #expect(decoded == index)
        #expect(decoded.bytes == index.bytes)
        #expect(index.patches(to: Self.c).map(\.from) == [Self.a, Self.b])
        #expect(String(decoding: index.bytes, as: UTF8.self).hasPrefix(#"{"format":"zstd","patches":[{"from":"sha256:0101"#))
        #expect(PatchIndex.path(bundle: Self.a) == "bundles/\(Self.a.hex)/patches.json")
        #expect(PatchIndex.path(of: Self.b) == "patches/\(Self.b.hex)")
    }

    @Test(arguments: [
        (#"[]"#, FormatError.Code.invalidManifest),
        (#"{"format":"bsdiff","patches":[],"version":1}"#, .unsupportedFormatVersion),
        (#"{"format":"zstd","patches":[],"version":2}"#, .unsupportedFormatVersion),
        (#"{"format":"zstd","patches":{},"version":1}"#, .invalidManifest),
        (#"{"format":"zstd","patches":[{"from":"sha256:00","fromSize":1,"patch":"sha256:00","size":1,"to":"sha256:00"}],"version":1}"#, .invalidDigest),
        (#"{"format":"zstd","patches":[{"from":1}],"version":1}"#, .invalidManifest),
        ("{", .invalidJSON),
    ])
    func refusesWhatIsNotAnIndex(_ text: String, _ code: FormatError.Code) {
        #expect { try PatchIndex(decoding: Array(text.utf8)) } throws: { ($0 as? FormatError)?.code == code }
    }

    @Test func refusesANegativeOrZeroSize() {
        let entry = #"{"from":"\#(Self.a)","fromSize":1,"patch":"\#(Self.b)","size":0,"to":"\#(Self.c)"}"#
        #expect(throws: FormatError.self) { try PatchIndex(decoding: Array(#"{"format":"zstd","patches":[\#(entry)],"version":1}"#.utf8)) }
    }
}
