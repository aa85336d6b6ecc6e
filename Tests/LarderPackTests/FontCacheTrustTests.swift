import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderPack

/// Whoever can write a font cache folder (a CI cache shared between branches, another user)
/// writes an entry's digest along with its bytes: what a pack ships must not depend on it.
@Suite struct FontCacheTrustTests {
    static let lato = FontPipelineTests.lato
    static let latoBold = try! Array(Data(contentsOf: URL(fileURLWithPath: sampleBundles + "/onboarding/fonts/Lato-Bold.ttf")))

    /// One face (Lato) in a `latin` subset: one conversion entry, one character map entry.
    static func folder() throws -> SourceFolder {
        try FontPipelineTests.folder(fonts: #"{"subsets": ["latin"]}"#, files: ["fonts/face.ttf": lato])
    }

    struct Entry {
        var path: String
        var key: String
        var output: [UInt8]
    }

    /// The cache's conversion entries (those whose output is a WOFF2).
    static func woff2Entries(in cache: String) throws -> [Entry] {
        let marker = Array("\noutput sha256:".utf8)
        return try FileManager.default.contentsOfDirectory(atPath: cache).filter { !$0.hasPrefix(".") }.sorted().compactMap { name in
            let content = Array(try #require(FileManager.default.contents(atPath: cache + "/" + name)))
            let first = try #require(content.firstIndex(of: 0x0A))
            let output = try #require((first..<(content.count - marker.count)).first { content[$0..<($0 + marker.count)].elementsEqual(marker) })
            let end = try #require(content[output + 1..<content.count].firstIndex(of: 0x0A))
            let bytes = Array(content[(end + 1)...])
            let key = String(decoding: content[(first + 1)..<output], as: UTF8.self)
            return bytes.starts(with: Array("wOF2".utf8)) ? Entry(path: cache + "/" + name, key: key, output: bytes) : nil
        }
    }

    /// What a writer of the folder puts in place of an entry, its digest and size written to match.
    enum Planted: String, CaseIterable, CustomStringConvertible {
        /// Not even a font, in the format every version reads.
        case notAFont
        /// A WOFF2 of the same characters from another face (Lato Bold for Lato Regular): what
        /// checking only that it decodes and maps the right characters would let through.
        case sameCharactersOtherFace
        /// The other face again, with a signature made without the user's key.
        case forgedSignature

        var description: String { rawValue }

        func bytes() throws -> [UInt8] {
            switch self {
            case .notAFont: return Array("#!/bin/sh\necho this is not a font\n".utf8)
            case .sameCharactersOtherFace, .forgedSignature:
                let characters = try FontTools.characters(of: FontCacheTrustTests.lato).intersection(NamedRanges.ranges(named: "latin")!)
                let subset = try FontTools.subset(FontCacheTrustTests.latoBold, to: characters, features: FontFeatures())
                return try FontTools.woff2(subset, quality: 1)
            }
        }

        func file(key: String, output: [UInt8]) -> [UInt8] {
            let digest = SHA256Hasher.hash(output)
            switch self {
            case .notAFont, .sameCharactersOtherFace:
                return Array("larder-font-cache 1\n\(key)\noutput \(digest) \(output.count)\n".utf8) + output
            case .forgedSignature:
                let signature = String(repeating: "ab", count: 32)
                return Array("larder-font-cache 2\n\(key)\noutput \(digest) \(output.count) signature \(signature)\n".utf8) + output
            }
        }
    }

    /// A planted conversion entry is rejected, converted again and replaced: the pack's bytes
    /// are those of a pack with an empty cache, and the planted bytes are nowhere in them.
    @Test(arguments: Planted.allCases)
    func aPlantedEntryIsNeverPacked(_ planted: Planted) throws {
        let cache = try SourceFolder()
        let folder = try Self.folder()
        let clean = try FontPipelineTests.pack(folder, cache: cache.root)
        let expected = try #require(FileManager.default.contents(atPath: clean.archivePath))
        try FileManager.default.removeItem(atPath: clean.archivePath)
        let entries = try Self.woff2Entries(in: cache.root)
        #expect(entries.count == 1)
        let bytes = try planted.bytes()
        for entry in entries { try Data(planted.file(key: entry.key, output: bytes)).write(to: URL(fileURLWithPath: entry.path)) }

        let again = try FontPipelineTests.pack(folder, cache: cache.root)
        #expect(again.fonts.rejectedCacheEntries == 1 && again.fonts.conversions == 1, "\(again.fonts)")
        #expect(FileManager.default.contents(atPath: again.archivePath) == expected)
        #expect(!(try FontPipelineTests.files(again).values.contains(bytes)))
        // Replaced by the real conversion, signed: the next pack takes it as it is.
        #expect(try Self.woff2Entries(in: cache.root).map(\.output) == entries.map(\.output))
        try FileManager.default.removeItem(atPath: again.archivePath)
        let third = try FontPipelineTests.pack(folder, cache: cache.root)
        #expect(third.fonts.cacheHits == 2 && third.fonts.rejectedCacheEntries == 0 && third.fonts.verifiedCacheEntries == 0)
    }

    /// Entries not signed with this user's key (a cache restored from another machine's CI job,
    /// or written by a version that did not sign) are checked against their sources, used, and
    /// signed: nothing is converted again.
    @Test func anUnsignedEntryIsCheckedThenSigned() throws {
        let cache = try SourceFolder()
        let folder = try Self.folder()
        let clean = try FontPipelineTests.pack(folder, cache: cache.root)
        let expected = try #require(FileManager.default.contents(atPath: clean.archivePath))
        try FileManager.default.removeItem(atPath: clean.archivePath)
        var unsigned = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: cache.root) where !name.hasPrefix(".") {
            let path = cache.root + "/" + name
            let content = Array(try #require(FileManager.default.contents(atPath: path)))
            let signature = Array(" signature ".utf8)
            let at = try #require((0..<(content.count - signature.count)).first { content[$0..<($0 + signature.count)].elementsEqual(signature) })
            let end = try #require(content[at...].firstIndex(of: 0x0A))
            try Data(content[..<at] + content[end...]).write(to: URL(fileURLWithPath: path))
            unsigned += 1
        }
        #expect(unsigned == 2)
        let again = try FontPipelineTests.pack(folder, cache: cache.root)
        #expect(again.fonts.verifiedCacheEntries == 2 && again.fonts.cacheHits == 2 && again.fonts.conversions == 0, "\(again.fonts)")
        #expect(FileManager.default.contents(atPath: again.archivePath) == expected)
        try FileManager.default.removeItem(atPath: again.archivePath)
        let third = try FontPipelineTests.pack(folder, cache: cache.root)
        #expect(third.fonts.verifiedCacheEntries == 0 && third.fonts.cacheHits == 2)
    }

    /// The check of an unsigned entry accepts the encoder's WOFF2 at every Brotli quality (it
    /// re-encodes at quality 0: the stream and its padding differ), and nothing that decodes to
    /// another font or carries other bytes.
    @Test func theCheckAcceptsTheEncodingAtEveryQualityAndNothingElse() throws {
        let phrase = UnicodeRanges(scalars: "Plan a week of meals".unicodeScalars.map(\.value))
        let sfnt = try FontTools.subset(Self.lato, to: phrase, features: FontFeatures())
        for quality in 0...11 {
            let encoded = try FontTools.woff2(sfnt, quality: quality)
            #expect(throws: Never.self, "quality \(quality)") { try FontTools.verifyWOFF2(encoded, encodes: sfnt) }
        }
        let encoded = try FontTools.woff2(sfnt, quality: 5)
        let other = try FontTools.subset(Self.latoBold, to: phrase, features: FontFeatures())
        var flipped = encoded
        flipped[flipped.count / 2] ^= 0x01
        var longer = encoded + [0, 0, 0, 0]
        longer.replaceSubrange(8..<12, with: withUnsafeBytes(of: UInt32(longer.count).bigEndian, Array.init))
        for (wrong, what) in [(flipped, "tables"), (longer, "what follows its compressed tables"), (Array(encoded.prefix(100)), "WOFF2")] {
            #expect(throws: FontProblem.self) { try FontTools.verifyWOFF2(wrong, encodes: sfnt) }
            do { try FontTools.verifyWOFF2(wrong, encodes: sfnt) } catch { #expect(error.message.contains(what), "\(error.message)") }
        }
        #expect(throws: FontProblem.self) { try FontTools.verifyWOFF2(encoded, encodes: other) }
        #expect(throws: FontProblem.self) { try FontTools.verifyWOFF2(try FontTools.woff2(other, quality: 5), encodes: sfnt) }
    }

    /// A folder other users can write, or that another user owns, is not used: a warning says
    /// why, and the pack converts as with no cache (whatever entries it holds).
    @Test(arguments: ["group-writable", "world-writable", "another owner"])
    func aFolderOthersCanWriteIsNotUsed(_ how: String) throws {
        let cache = try SourceFolder()
        let folder = try Self.folder()
        let clean = try FontPipelineTests.pack(folder, cache: cache.root)
        let expected = try #require(FileManager.default.contents(atPath: clean.archivePath))
        try FileManager.default.removeItem(atPath: clean.archivePath)
        switch how {
        case "group-writable": #expect(chmod(cache.root, 0o775) == 0)
        case "world-writable": #expect(chmod(cache.root, 0o1777) == 0)
        default:
            try #require(geteuid() == 0, "only root can give a folder to another user")
            #expect(chown(cache.root, 4242, 4242) == 0)
        }
        let again = try FontPipelineTests.pack(folder, cache: cache.root)
        let warning = try #require(again.warnings.first { $0.kind == .fontCache })
        #expect(warning.message.contains(how == "another owner" ? "belongs to user 4242" : "can be written by other users"), "\(warning.message)")
        #expect(warning.message.hasSuffix("; fonts are converted without it"))
        #expect(again.fonts.cacheFolder == nil && again.fonts.cacheHits == 0 && again.fonts.conversions == 2)
        #expect(FileManager.default.contents(atPath: again.archivePath) == expected)
    }
}
