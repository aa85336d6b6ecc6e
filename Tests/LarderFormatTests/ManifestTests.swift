import Testing
@testable import LarderFormat

@Suite struct ManifestTests {
    static let digestA = SHA256Hasher.hash(Array("a".utf8))
    static let digestB = SHA256Hasher.hash(Array("b".utf8))

    static func sample() throws -> Manifest {
        try Manifest(
            name: "demo", entry: "index.html", renderer: .init(protocolVersion: 1, capabilities: [.visibility, .prepare]),
            files: [
                .init(path: "index.html", digest: digestA, size: 1, mediaType: "text/html; charset=utf-8", role: .document, essential: true),
                .init(path: "css/app.css", digest: digestB, size: 1, mediaType: "text/css; charset=utf-8", role: .style, essential: true),
            ])
    }

    @Test func encodesCanonicallyWithSortedFiles() throws {
        let manifest = try Self.sample()
        #expect(manifest.files.map(\.path) == ["css/app.css", "index.html"])
        let text = String(decoding: manifest.canonicalBytes, as: UTF8.self)
        #expect(
            text
                == #"{"entry":"index.html","files":[{"digest":"\#(Self.digestB)","essential":true,"mediaType":"text/css; charset=utf-8","path":"css/app.css","role":"style","size":1},{"digest":"\#(Self.digestA)","essential":true,"mediaType":"text/html; charset=utf-8","path":"index.html","role":"document","size":1}],"format":1,"name":"demo","renderer":{"capabilities":["prepare","visibility"],"protocol":1}}"#
        )
        #expect(manifest.bundleDigest == SHA256Hasher.hash(manifest.canonicalBytes))
    }

    @Test func roundTrips() throws {
        let manifest = try Self.sample()
        #expect(try Manifest(decoding: manifest.canonicalBytes) == manifest)
    }

    /// Each case edits the canonical text of the sample and names the field the error must name.
    @Test(arguments: [
        (#""format":1"#, #""format":2"#, "format", FormatError.Code.unsupportedFormatVersion),
        (#""format":1"#, #""format":"1""#, "format", .invalidManifest),
        (#","name":"demo""#, "", "name", .invalidManifest),
        (#""name":"demo""#, #""name":"demo","owner":"x""#, "owner", .invalidManifest),
        (#""path":"css/app.css""#, #""path":"/css/app.css""#, "files[0].path", .invalidManifest),
        (#""path":"css/app.css""#, #""path":"css/../app.css""#, "files[0].path", .invalidManifest),
        (#""path":"css/app.css""#, #""path":"index.html""#, "files[1].path", .invalidManifest),
        (#""path":"css/app.css""#, #""path":"zzz.css""#, "files[1].path", .invalidManifest),
        (#""path":"css/app.css""#, "\"path\":\"cafe\\u0301.css\"", "files[0].path", .invalidManifest),
        (#""digest":"sha256:"#, #""digest":"sha512:"#, "files[0].digest", .invalidManifest),
        (#""role":"style""#, #""role":"stylesheet""#, "files[0].role", .invalidManifest),
        (#""size":1}"#, #""size":-1}"#, "files[0].size", .invalidManifest),
        (#""essential":true"#, #""essential":1"#, "files[0].essential", .invalidManifest),
        (#""entry":"index.html""#, #""entry":"missing.html""#, "entry", .invalidManifest),
        (#""capabilities":["prepare","visibility"]"#, #""capabilities":["teleport"]"#, "renderer.capabilities[0]", .invalidManifest),
    ] as [(String, String, String, FormatError.Code)])
    func rejectsWithTheFieldNamed(_ find: String, _ replace: String, _ field: String, _ code: FormatError.Code) throws {
        let text = String(decoding: try Self.sample().canonicalBytes, as: UTF8.self)
        guard let range = text.range(of: find) else {
            Issue.record("test case does not match the sample: \(find)")
            return
        }
        let edited = text.replacingCharacters(in: range, with: replace)
        do throws(FormatError) {
            _ = try Manifest(decoding: Array(edited.utf8))
            Issue.record("accepted: \(edited)")
        } catch {
            #expect(error.code == code)
            #expect(error.field == field, "\(error)")
        }
    }

    @Test func rejectsNonCanonicalBytesOfAValidManifest() throws {
        let text = String(decoding: try Self.sample().canonicalBytes, as: UTF8.self)
        let spaced = text.replacingOccurrences(of: #","name":"#, with: #", "name":"#)
        #expect(throws: FormatError.self) { try Manifest(decoding: Array(spaced.utf8)) }
    }

    @Test func rejectsDuplicatePaths() throws {
        let file = Manifest.File(path: "index.html", digest: Self.digestA, size: 1, mediaType: "text/html", role: .document, essential: true)
        #expect(throws: FormatError.self) { try Manifest(name: "x", entry: "index.html", renderer: .init(), files: [file, file]) }
    }
}

import Foundation
