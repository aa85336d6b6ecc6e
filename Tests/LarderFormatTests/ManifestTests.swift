import Testing
@testable import LarderFormat
import LarderTestSupport

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

    @Test func decodesStoredBytesThatNameTheirBundle() throws {
        let manifest = try Self.sample()
        #expect(try Manifest(decoding: manifest.canonicalBytes, naming: manifest.bundleDigest) == manifest)
    }

    /// A cache decodes its stored manifests by the digest they must hash to: another bundle's
    /// manifest, valid and canonical, is refused, as is one edited in place.
    @Test func refusesStoredBytesOfAnotherBundle() throws {
        let manifest = try Self.sample()
        let other = try Manifest(name: "other", entry: manifest.entry, renderer: manifest.renderer, files: manifest.files)
        let edited = String(decoding: manifest.canonicalBytes, as: UTF8.self).replacingOccurrences(of: #""size":1"#, with: #""size":2"#)
        for bytes in [other.canonicalBytes, Array(edited.utf8)] {
            #expect(throws: FormatError.self) { try Manifest(decoding: bytes, naming: manifest.bundleDigest) }
            do throws(FormatError) {
                _ = try Manifest(decoding: bytes, naming: manifest.bundleDigest)
            } catch {
                #expect(error.code == .digestMismatch)
            }
        }
    }

    @Test func rejectsDuplicatePaths() throws {
        let file = Manifest.File(path: "index.html", digest: Self.digestA, size: 1, mediaType: "text/html", role: .document, essential: true)
        #expect(throws: FormatError.self) { try Manifest(name: "x", entry: "index.html", renderer: .init(), files: [file, file]) }
    }
}

import Foundation

/// The manifest's limits hold wherever it comes from (an archive, HTTP), and bound what its
/// archive may weigh.
@Suite struct ManifestLimitTests {
    static func text(files: Int, padding: Int = 0) -> [UInt8] {
        var text = #"{"entry":"index.html","files":["# + Array(repeating: "{}", count: files).joined(separator: ",")
        text += #"],"format":1,"name":"\#(String(repeating: "n", count: padding))","renderer":{"capabilities":[],"protocol":1}}"#
        return Array(text.utf8)
    }

    @Test func moreFilesThanAnArchiveMayHoldAreRefusedBeforeAnyIsRead() throws {
        #expect(Manifest.maximumFiles == ArchiveReader.Limits.default.maximumEntries)
        do {
            _ = try Manifest(decoding: Self.text(files: Manifest.maximumFiles + 1))
            Issue.record("a manifest of too many files was accepted")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.field == "files")
        }
        // At the limit, the count passes and the first (empty) entry is what fails.
        do {
            _ = try Manifest(decoding: Self.text(files: Manifest.maximumFiles))
            Issue.record("empty file entries were accepted")
        } catch {
            #expect(error.code == .invalidManifest)
            #expect(error.field == "files[0].path")
        }
    }

    @Test func aDocumentOfTinyValuesIsRefusedBeforeItsTreeGrows() throws {
        let bytes = Array(("[" + String(repeating: "0,", count: 1_000_000) + "0]").utf8)
        do {
            _ = try Manifest(decoding: bytes)
            Issue.record("a million values were parsed")
        } catch {
            #expect(error.code == .limitExceeded)
        }
    }

    @Test func moreBytesThanTheArchivePathAcceptsAreRefusedUnparsed() throws {
        #expect(BundleVerifier.maximumManifestBytes == Manifest.maximumBytes)
        do {
            _ = try Manifest(decoding: Array(repeating: 0x20, count: Manifest.maximumBytes + 1))
            Issue.record("an oversized manifest was accepted")
        } catch {
            #expect(error.code == .limitExceeded)
        }
    }

    @Test func aJourneyDocumentOverOneMebibyteIsRefused() throws {
        do {
            _ = try JourneyDocument(decoding: Array(repeating: 0x20, count: JourneyDocument.maximumBytes + 1))
            Issue.record("an oversized journey document was accepted")
        } catch {
            #expect(error.code == .limitExceeded)
        }
    }

    /// Sizes no bundle has: one past the manifest's total, or two that sum past Int64.max, are
    /// refused with the file named; before, decoding took them and the archive bound (a
    /// download's limit) and `totalSize` (`larder inspect`) stopped the process with an
    /// arithmetic overflow (found with the manifest fuzz target).
    @Test(arguments: [
        ([Int64.max], 0), ([Manifest.maximumTotalBytes + 1], 0), ([1 << 62, 1 << 62], 0), ([Manifest.maximumTotalBytes, 1], 1),
    ] as [([Int64], Int)])
    func sizesPastTheTotalAreRefused(_ sizes: [Int64], failing index: Int) throws {
        let entries = sizes.enumerated().map { offset, size in
            #"{"digest":"\#(SHA256Hasher.hash([UInt8(offset)]))","essential":true,"mediaType":"text/html","path":"p\#(offset).html","role":"document","size":\#(size)}"#
        }
        let text = #"{"entry":"p0.html","files":["# + entries.joined(separator: ",") + #"],"format":1,"name":"n","renderer":{"capabilities":[],"protocol":1}}"#
        do {
            _ = try Manifest(decoding: Array(text.utf8))
            Issue.record("sizes \(sizes) were accepted")
        } catch {
            #expect(error.code == .limitExceeded, "\(error)")
            #expect(error.field == "files[\(index)].size")
        }
    }

    /// At the limit the sums hold: the archive bound and the total are computed, not trapped.
    @Test func theLargestTotalHasABound() throws {
        let manifest = try Manifest(
            name: "n", entry: "index.html", renderer: .init(),
            files: [
                .init(path: "index.html", digest: SHA256Hasher.hash([]), size: 1, mediaType: "text/html", role: .document, essential: true),
                .init(path: "big.bin", digest: SHA256Hasher.hash([1]), size: Manifest.maximumTotalBytes - 1, mediaType: "application/octet-stream", role: .data, essential: false),
            ])
        #expect(manifest.totalSize == Manifest.maximumTotalBytes)
        #expect(manifest.archiveSizeBound(manifestBytes: manifest.canonicalBytes.count) > Manifest.maximumTotalBytes)
    }

    /// Incompressible files and long paths are the worst case for the bound; text compresses.
    @Test(arguments: [(true, 40), (false, 40), (true, 1), (false, 600)] as [(Bool, Int)])
    func anArchiveNeverOutweighsItsBound(incompressible: Bool, count: Int) throws {
        var state: UInt64 = 7
        var files: [String: [UInt8]] = ["index.html": Array("<!doctype html>".utf8)]
        for index in 0..<count {
            let size = (index * 7919) % 70_000 + index % 3
            let bytes = (0..<size).map { position -> UInt8 in
                if !incompressible { return UInt8(ascii: "a") + UInt8(position % 7) }
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 33)
            }
            let folder = String(repeating: "deep-folder-name/", count: index % 5)
            files["\(folder)\(String(repeating: "f", count: 90))-\(index).bin"] = bytes
        }
        // Level 1 and 9: the fastest and the strongest compression (its worst case on noise).
        for level in [1, 9] {
            let (archive, manifest) = try makeBundleArchive(files: files, level: level)
            let bound = manifest.archiveSizeBound(manifestBytes: manifest.canonicalBytes.count)
            #expect(Int64(archive.count) <= bound, "level \(level): \(archive.count) bytes, bound \(bound)")
        }
        let (_, manifest) = try makeBundleArchive(files: files)
        let bound = manifest.archiveSizeBound(manifestBytes: manifest.canonicalBytes.count)
        let raw = files.values.reduce(Int64(0)) { $0 + Int64($1.count) }
        #expect(bound <= raw * 11 / 10 + Int64(files.count) * 2048 + 64 << 10, "the bound should stay near the uncompressed size")
    }
}
