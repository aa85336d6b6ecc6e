import Testing
@testable import LarderFormat

/// The readers' limits checked before an archive is written (``ArchiveReader/Limits/admit``):
/// a pack refuses exactly what a reader would.
@Suite struct ReaderLimitsTests {
    static let digest = SHA256Hasher.hash([])

    static func manifest(_ paths: [String]) throws -> Manifest {
        let files = paths.map { Manifest.File(path: $0, digest: digest, size: 0, mediaType: "", role: .data, essential: false) }
        return try Manifest(
            name: "many", entry: "index.html", renderer: .init(),
            files: files + [.init(path: "index.html", digest: digest, size: 0, mediaType: "text/html", role: .document, essential: true)])
    }

    /// 100,000 files are a manifest's limit, but the archive also holds the manifest itself:
    /// 100,001 entries, which every reader refused after pack had written them.
    @Test func theManifestAndEveryFolderAreEntries() throws {
        let all = try Self.manifest((1..<100_000).map { "f\($0)" })
        #expect(all.files.count == Manifest.maximumFiles)
        #expect(throws: FormatError.self) { try ArchiveReader.Limits.default.admit(VerifiedManifest(all)) }
        let fewer = try Self.manifest((1..<99_999).map { "f\($0)" })
        try ArchiveReader.Limits.default.admit(VerifiedManifest(fewer))
        // The same files in one folder: the folder is one more entry.
        let inFolder = try Self.manifest((1..<99_999).map { "d/\($0)" })
        do throws(FormatError) {
            try ArchiveReader.Limits.default.admit(VerifiedManifest(inFolder))
            Issue.record("admitted 100,001 entries")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("100001 entries (the manifest, 99999 files and 1 folders)"), "\(error)")
            #expect(error.message.contains("at most 100000"), "\(error)")
        }
    }

    @Test func aManifestReadersCannotReadIsRefused() throws {
        let manifest = try Self.manifest(["a"])
        try ArchiveReader.Limits.default.admit(manifest, manifestSize: Manifest.maximumBytes)
        do throws(FormatError) {
            try ArchiveReader.Limits.default.admit(manifest, manifestSize: Manifest.maximumBytes + 1)
            Issue.record("admitted a manifest over 16 MiB")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("readers accept at most 16777216"), "\(error)")
        }
    }

    @Test func totalBytesAreTheManifestsAndTheFiles() throws {
        let manifest = try Self.manifest(["a"])
        let bytes = manifest.canonicalBytes
        try ArchiveReader.Limits(maximumTotalBytes: Int64(bytes.count)).admit(VerifiedManifest(manifest))
        #expect(throws: FormatError.self) {
            try ArchiveReader.Limits(maximumTotalBytes: Int64(bytes.count) - 1).admit(VerifiedManifest(manifest))
        }
    }

    @Test(arguments: [
        (Int64(1 << 20), Int64(1), true), (Int64(1 << 20) + 1, Int64(1), false), (Int64(200) * 10_000, 10_000, true),
        (Int64(200) * 10_000 + 1, 10_000, false), (Int64(2) << 20, 0, false),
    ])
    func theRatioRule(_ uncompressed: Int64, _ compressed: Int64, _ admitted: Bool) {
        #expect(ArchiveReader.Limits.default.admitsRatio(uncompressed: uncompressed, compressed: compressed) == admitted)
    }
}
