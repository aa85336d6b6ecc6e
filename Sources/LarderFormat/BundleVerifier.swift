/// What ``BundleVerifier/verify(archiveAt:expectedDigest:limits:)`` found.
public struct VerificationReport: Sendable {
    /// The manifest, when it could be read and decoded.
    public var manifest: Manifest?
    /// The digest of the manifest bytes found in the archive.
    public var bundleDigest: Digest?
    /// Files whose bytes were hashed and matched.
    public var filesVerified = 0
    /// Uncompressed file bytes hashed.
    public var bytesVerified: Int64 = 0
    /// Everything wrong, each naming its entry. Empty means the archive is intact.
    public var problems: [FormatError] = []

    public var isIntact: Bool { problems.isEmpty && manifest != nil }
}

/// Checks a bundle archive end to end: the manifest comes first, decodes strictly and hashes to
/// the expected bundle digest; every listed file is present once with the listed size and
/// digest; nothing else is in the archive.
public enum BundleVerifier {
    /// The largest manifest accepted, in bytes.
    public static let maximumManifestBytes = Manifest.maximumBytes

    /// Reads, decodes and hashes the manifest, which must be the first entry.
    /// - Returns: the manifest with its exact bytes and the bundle digest they hash to.
    public static func readManifest(from reader: ArchiveReader) throws(FormatError) -> VerifiedManifest {
        guard let first = try reader.next() else {
            throw FormatError(.missingEntry, "the archive is empty; '\(Manifest.entryName)' must come first", entry: Manifest.entryName)
        }
        guard first.path == Manifest.entryName, first.kind == .file else {
            throw FormatError(
                .missingEntry, "the first entry must be '\(Manifest.entryName)'", entry: first.path)
        }
        let bytes = try reader.readAll(limit: maximumManifestBytes)
        do throws(FormatError) {
            return try VerifiedManifest(decoding: bytes)
        } catch {
            throw FormatError(error.code, error.message, entry: Manifest.entryName, field: error.field)
        }
    }

    /// Verifies the archive at `path`.
    /// - Parameters:
    ///   - expectedDigest: the bundle digest the archive must have; when nil and the file is
    ///     named `<64 hex>.tar.gz`, the name gives it.
    ///   - path: the archive file.
    ///   - limits: what the archive may hold.
    /// - Returns: a report listing every problem; it throws only when the file cannot be opened.
    public static func verify(
        archiveAt path: String, expectedDigest: Digest? = nil, limits: ArchiveReader.Limits = .default
    ) throws(FormatError) -> VerificationReport {
        let file = try ReadableFile(path: path)
        return verify(expectedDigest: expectedDigest ?? digestFromFileName(path), limits: limits, displayName: path) { (buffer) throws(FormatError) in
            try file.read(into: buffer)
        }
    }

    /// Verifies the archive `source` supplies (``verify(archiveAt:expectedDigest:limits:)``):
    /// for a caller that reads the file itself, e.g. to hash what it checked.
    /// - Parameters:
    ///   - path: the archive's name for messages.
    ///   - expected: the bundle digest the archive must have; nil checks the archive alone.
    ///   - limits: what the archive may hold.
    ///   - source: gives the compressed bytes, a buffer at a time.
    public static func verify(
        expectedDigest expected: Digest?, limits: ArchiveReader.Limits = .default, displayName path: String, source: @escaping ArchiveReader.Source
    ) -> VerificationReport {
        var report = VerificationReport()
        do throws(FormatError) {
            let reader = try ArchiveReader(limits: limits, displayName: path, source: source)
            let verified = try readManifest(from: reader)
            let (manifest, digest) = (verified.manifest, verified.digest)
            report.manifest = manifest
            report.bundleDigest = digest
            if let expected, expected != digest {
                report.problems.append(
                    FormatError(
                        .digestMismatch,
                        "manifest hashes to \(digest), but the bundle is named \(expected): the manifest was edited",
                        entry: Manifest.entryName))
            }
            try checkFiles(of: manifest, in: reader, into: &report)
        } catch {
            report.problems.append(error)
        }
        return report
    }

    private static func checkFiles(
        of manifest: Manifest, in reader: ArchiveReader, into report: inout VerificationReport
    ) throws(FormatError) {
        var remaining = Set(manifest.files.map(\.path))
        var folders = Set<String>()
        for file in manifest.files {
            var prefix = Substring("")
            for segment in file.path.split(separator: "/").dropLast() {
                prefix = prefix.isEmpty ? segment : Substring(prefix + "/" + segment)
                folders.insert(String(prefix))
            }
        }
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while let entry = try reader.next() {
            if entry.kind == .folder {
                if !folders.contains(entry.path) {
                    report.problems.append(
                        FormatError(.unexpectedEntry, "folder is not part of the manifest", entry: entry.path))
                }
                continue
            }
            guard let listed = manifest.file(at: entry.path) else {
                report.problems.append(FormatError(.unexpectedEntry, "file is not listed in the manifest", entry: entry.path))
                continue
            }
            remaining.remove(entry.path)
            var size: Int64 = 0
            while true {
                let count = try reader.read(into: buffer)
                if count == 0 { break }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                size += Int64(count)
            }
            let digest = hasher.finalize()
            report.bytesVerified += size
            if size != listed.size {
                report.problems.append(
                    FormatError(.sizeMismatch, "has \(size) bytes, the manifest says \(listed.size)", entry: entry.path))
            } else if digest != listed.digest {
                report.problems.append(
                    FormatError(.digestMismatch, "hashes to \(digest), the manifest says \(listed.digest)", entry: entry.path))
            } else {
                report.filesVerified += 1
            }
        }
        for path in remaining.sorted(by: BundlePath.precedes) {
            report.problems.append(FormatError(.missingEntry, "listed in the manifest but not in the archive", entry: path))
        }
    }

    /// The digest in a file name of the form `<64 hex>.tar.gz`, if it has that form.
    public static func digestFromFileName(_ path: String) -> Digest? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.hasSuffix(".tar.gz") else { return nil }
        return try? Digest(hex: name.dropLast(".tar.gz".count))
    }
}
