import Foundation
import LarderFormat
import LarderSystem

/// What to publish for a journey besides its bundle.
public struct JourneyPublication: Sendable {
    public var id: String
    /// A publishable key to grant this journey (added to the origin's access maps).
    public var key: String?
    public var refresh: Int64
    public var now: Date
    /// Signs the journey document when set; publishing again with the same bundle then renews
    /// the signature and its expiry, keeping the revision.
    public var signingKey: SigningKey?
    /// How long after signing a device accepts the document (seconds; 7 days by default).
    public var validity: Int64
    /// A staged rollout: the share of identities (1–99) that get the new bundle while the rest
    /// keep the previous revision's; nil or 100 for everyone (completing a rollout).
    public var rollout: Int?

    public init(
        id: String, key: String?, refresh: Int64 = 600, now: Date = Date(), signingKey: SigningKey? = nil,
        validity: Int64 = 7 * 86_400, rollout: Int? = nil
    ) {
        self.id = id
        self.key = key
        self.refresh = refresh
        self.now = now
        self.signingKey = signingKey
        self.validity = validity
        self.rollout = rollout
    }

    /// Journey ids and keys end up in URLs and nginx maps: letters, digits, `_`, `-`, `.` only
    /// (and a journey id never ends in `.history`, the suffix of history files).
    public static func isValidName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && text != "." && text != ".."
            && text.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }
}

extension JourneyPublication {
    /// A valid name that does not end in `.history` (`journeys/<id>.history.json` is the
    /// history of journey `<id>`, never a journey document of its own).
    public static func isValidJourneyID(_ text: String) -> Bool {
        isValidName(text) && !text.hasSuffix(".history")
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}

/// What ``OriginPublisher/publish(archives:to:journey:progress:)`` wrote.
public struct PublishReport: Sendable {
    public struct Bundle: Sendable {
        public var name: String
        public var digest: Digest
        public var objectsWritten: Int
        public var filesWritten: Int
    }

    public var bundles: [Bundle]
    public var journey: JourneyDocument?
    /// Paths (relative to the origin) that were created or replaced; empty when publishing
    /// changed nothing.
    public var changed: [String]
    /// Paths of bundles already published that the target had lost, or held at another size,
    /// and that were sent again (also in ``changed``): a bucket's lifecycle rule, a cleanup, a
    /// gateway that acknowledged a PUT it did not keep.
    public var repaired: [String] = []

    public init(bundles: [Bundle], journey: JourneyDocument?, changed: [String], repaired: [String] = []) {
        self.bundles = bundles
        self.journey = journey
        self.changed = changed
        self.repaired = repaired
    }
}

/// Writes the static origin layout any HTTP server, CDN or object store can serve:
///
/// ```
/// objects/<hex>                    immutable objects, by SHA-256
/// objects/<hex>.gz                 a gzip copy of each object that compresses (served with
///                                  `Content-Encoding: gzip` to clients that ask, nginx's
///                                  `gzip_static`); already-compressed media have none
/// bundles/<hex>.tar.gz             immutable archives, by bundle digest
/// bundles/<hex>/manifest.json      immutable manifests, by bundle digest
/// bundles/<hex>/patches.json       immutable patch index of a bundle (PatchIndex), when it has
///                                  patches; written before its manifest
/// patches/<hex>                    immutable zstd patches between revisions' objects, by SHA-256
/// journeys/<id>.json               the only mutable documents (revalidated with ETags)
/// access/keys.map, grants.map      publishable keys and the journeys each may read
/// ```
///
/// Every file is written under a temporary name and renamed into place, so a reader never sees
/// half a file; content that is already there is not written again.
public enum OriginPublisher {
    /// Publishes archives to an origin folder, then points the journey (when given) at the
    /// last one and grants its key.
    /// - Throws: ``PublishError`` as reported (``PublishError/reported``):
    ///   ``PublishError/Code/invalidIdentifier`` for a journey id or key an origin does not
    ///   serve, ``PublishError/Code/outputFailed`` for a folder that cannot be written,
    ///   ``PublishError/Code/invalidConfiguration`` for an archive or journey that cannot be
    ///   published.
    /// - Parameters:
    ///   - archives: the archives to publish (`larder pack`'s), in order; the journey points at
    ///     the last.
    ///   - origin: the origin folder, made if missing.
    ///   - journey: the journey to point at the last archive, and the key to grant it; nil to
    ///     publish the bundles alone.
    ///   - progress: told the bytes of objects, manifests and archives written (or found there)
    ///     after each, of their total; nil (the default) for no reports.
    public static func publish(
        archives: [String], to origin: String, journey: JourneyPublication?, progress: (@Sendable (PublishProgress) -> Void)? = nil
    ) throws(PublishError) -> PublishReport {
        if let journey {
            guard JourneyPublication.isValidJourneyID(journey.id) else {
                throw PublishError(.invalidIdentifier, "journey id '\(journey.id)' may use only letters, digits, '_', '-' and '.', and may not end in '.history'")
            }
            if let key = journey.key, !JourneyPublication.isValidName(key) {
                throw PublishError(.invalidIdentifier, "key '\(key)' may use only letters, digits, '_', '-' and '.'")
            }
        }
        do throws(Folder.CreationError) {
            for folder in ["", "/objects", "/bundles", "/journeys", "/access"] { try Folder.createPath(origin + folder) }
        } catch {
            let why =
                error.errno == .notAFolder
                ? "the origin folder is under a file: \(error.path) is not a folder"
                : "cannot create the origin folder \(error.path): \(error.errno)"
            throw PublishError(.outputFailed, why, path: origin)
        }
        var report = PublishReport(bundles: [], journey: nil, changed: [])
        do throws(FormatError) {
            let patches = patchSource(journey: journey, origin: origin)
            let counter = PublishProgressCounter(progress)
            for archive in archives { counter?.expect(bytesToWrite(archive)) }
            for archive in archives {
                report.bundles.append(try publishBundle(archive, to: origin, changed: &report.changed, patches: patches, progress: counter))
            }
            if let journey, let last = report.bundles.last {
                var changed = report.changed
                report.journey = try publishJourney(journey, bundle: last.digest, to: origin, changed: &changed)
                report.changed = changed
            }
        } catch {
            let code: PublishError.Code = error.code == .io ? .outputFailed : .invalidConfiguration
            throw PublishError(code, error.detail, path: error.path, cause: error)
        }
        return report
    }

    /// Verifies an archive entry by entry while writing its objects, then its manifest and
    /// the archive itself.
    /// - Parameters:
    ///   - durable: false for a staging folder removed after the upload: nothing is flushed to
    ///     disk.
    ///   - patches: the earlier revisions to write patches from (``PatchWriter``), before the
    ///     manifest; nil for none.
    ///   - progress: counts each object's size once written (or found there), then the
    ///     manifest's and the archive's (``bytesToWrite(_:)`` in all).
    static func publishBundle(
        _ archive: String, to origin: String, changed: inout [String], durable: Bool = true, patches: PatchSource? = nil,
        progress: PublishProgressCounter? = nil
    ) throws(FormatError) -> PublishReport.Bundle
    {
        let reader = try ArchiveReader(path: archive)
        let verified = try BundleVerifier.readManifest(from: reader)
        let (manifest, digest) = (verified.manifest, verified.digest)
        if let named = BundleVerifier.digestFromFileName(archive), named != digest {
            throw FormatError(.digestMismatch, "the manifest hashes to \(digest), but the archive is named \(named)", path: archive)
        }
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        var seen = Set<String>()
        var objectsWritten = 0
        var written: [String] = []
        while let entry = try reader.next() {
            guard entry.kind == .file else { continue }
            guard let listed = manifest.file(at: entry.path) else {
                throw FormatError(.unexpectedEntry, "file is not listed in the manifest", path: archive, entry: entry.path)
            }
            seen.insert(entry.path)
            let relative = "objects/" + listed.digest.hex
            let exists = FileManager.default.fileExists(atPath: origin + "/" + relative)
            let output = exists ? nil : try AtomicFileWriter(folder: origin + "/objects", prefix: listed.digest.hex, durable: durable)
            let compressed = try CompressedCopy(of: listed, at: origin + "/" + relative + ".gz", durable: durable)
            var size: Int64 = 0
            while true {
                let count = try reader.read(into: buffer)
                if count == 0 { break }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                hasher.update(chunk)
                try output?.write(chunk)
                try compressed?.write(chunk)
                size += Int64(count)
            }
            guard hasher.finalize() == listed.digest, size == listed.size else {
                throw FormatError(.digestMismatch, "does not match the manifest", path: archive, entry: entry.path)
            }
            if let output, !written.contains(relative) {
                try output.commit(to: origin + "/" + relative)
                written.append(relative)
                objectsWritten += 1
            }
            if let compressed, !written.contains(relative + ".gz"), try compressed.commit() { written.append(relative + ".gz") }
            progress?.advance(by: size)
        }
        if let missing = manifest.files.first(where: { !seen.contains($0.path) }) {
            throw FormatError(.missingEntry, "listed in the manifest but not in the archive", path: archive, entry: missing.path)
        }
        let manifestPath = "bundles/\(digest.hex)/manifest.json"
        try FormatError.typed { try FileManager.default.createDirectory(atPath: origin + "/bundles/" + digest.hex, withIntermediateDirectories: true) }
        // A bundle published before had its patches then: publishing it again writes none.
        if let patches, !FileManager.default.fileExists(atPath: origin + "/" + manifestPath) {
            do { written += try PatchWriter.write(manifest, bundle: digest, source: patches, in: origin, durable: durable) } catch {
                throw error.formatError
            }
        }
        if try writeIfMissing(verified.bytes, to: manifestPath, in: origin) { written.append(manifestPath) }
        progress?.advance(by: Int64(verified.bytes.count))
        let archivePath = "bundles/\(digest.hex).tar.gz"
        if !FileManager.default.fileExists(atPath: origin + "/" + archivePath) {
            let input = try ReadableFile(path: archive)
            let output = try AtomicFileWriter(folder: origin + "/bundles", prefix: digest.hex, durable: durable)
            while true {
                let count = try input.read(into: buffer)
                if count == 0 { break }
                try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
            try output.commit(to: origin + "/" + archivePath)
            written.append(archivePath)
        }
        if let progress { progress.advance(by: archiveSize(archive)) }
        changed += written
        return PublishReport.Bundle(name: manifest.name, digest: digest, objectsWritten: objectsWritten, filesWritten: written.count)
    }

    /// What ``publishBundle(_:to:changed:durable:patches:progress:)`` counts for an archive:
    /// its files, its manifest and itself; 0 for one it cannot read (publishing it fails).
    private static func bytesToWrite(_ archive: String) -> Int64 {
        guard let reader = try? ArchiveReader(path: archive), let verified = try? BundleVerifier.readManifest(from: reader) else { return 0 }
        return verified.manifest.files.reduce(0) { $0 + $1.size } + Int64(verified.bytes.count) + archiveSize(archive)
    }

    private static func archiveSize(_ archive: String) -> Int64 {
        (try? FileStatus.ofLink(archive).size) ?? 0
    }

    /// The earlier revisions a folder publish patches from: the journey's, or for plain
    /// bundles the folder's earlier bundles of the same name.
    private static func patchSource(journey: JourneyPublication?, origin: String) -> PatchSource {
        guard let journey else { return .sameName(in: origin) }
        return .journey(journey.id, on: LocalFolderTarget(folder: origin))
    }

    /// Points the journey at `bundle` holding the folder's lock, and grants its key.
    private static func publishJourney(
        _ publication: JourneyPublication, bundle: Digest, to origin: String, changed: inout [String]
    ) throws(FormatError) -> JourneyDocument {
        let target = LocalFolderTarget(folder: origin)
        do {
            return try target.changingMutableFiles { () throws(PublishError) -> JourneyDocument in
                let document = try publishJourney(publication, bundle: bundle, target: target, changed: &changed)
                let maps = AccessMaps(origin: origin)
                try PublishError.local { () throws(FormatError) in
                    if let key = publication.key {
                        changed += try maps.grantHoldingLock(key, journey: publication.id)
                    } else {
                        changed += try maps.createMissing()
                    }
                }
                return document
            }
        } catch {
            throw error.formatError
        }
    }

    /// The journey's published document, nil before its first publish.
    public static func currentDocument(journey: String, origin: String) throws(FormatError) -> JourneyDocument? {
        let full = origin + "/journeys/\(journey).json"
        guard FileManager.default.fileExists(atPath: full) else { return nil }
        do { return try JourneyDocument(decoding: try ReadableFile(path: full).readAll(limit: JourneyDocument.maximumBytes)) } catch {
            throw error.at(path: full)
        }
    }

    /// The rollout a publication asks for. The rest keep the bundle everyone had before: the
    /// previous revision's, or, while a rollout is under way, the bundle that rollout started
    /// from (raising its percentage keeps everyone already in; another bundle starts over).
    /// - Throws: ``FormatError/Code/invalidManifest`` for a percentage outside 1–100 or a
    ///   rollout with no earlier revision.
    static func rollout(of publication: JourneyPublication, bundle: Digest, after previous: JourneyDocument?) throws(FormatError)
        -> JourneyDocument.Rollout?
    {
        guard let percent = publication.rollout, percent != 100 else { return nil }
        guard (1...99).contains(percent) else { throw FormatError(.invalidManifest, "a rollout is 1 to 100 percent, not \(percent)") }
        guard let previous else {
            throw FormatError(.invalidManifest, "journey '\(publication.id)' has no earlier revision for the other \(100 - percent)% to keep")
        }
        let stable = previous.rollout?.previous ?? previous.bundle
        guard stable != bundle else { return nil }
        return JourneyDocument.Rollout(percent: percent, previous: stable)
    }

    /// ISO 8601 in UTC, to the second.
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    private static func writeIfMissing(_ bytes: [UInt8], to path: String, in origin: String) throws(FormatError) -> Bool {
        guard !FileManager.default.fileExists(atPath: origin + "/" + path) else { return false }
        try replace(bytes, at: path, in: origin)
        return true
    }

    static func replace(_ bytes: [UInt8], at path: String, in origin: String) throws(FormatError) {
        let full = origin + "/" + path
        let folder = (full as NSString).deletingLastPathComponent
        let output = try AtomicFileWriter(folder: folder, prefix: (full as NSString).lastPathComponent)
        try FormatError.typed { try bytes.withUnsafeBytes { try output.write($0) } }
        try output.commit(to: full)
    }
}
