import Foundation
import LarderFormat

/// What to publish for a journey besides its bundle.
public struct JourneyPublication: Sendable {
    public var id: String
    /// A publishable key to grant this journey (added to the origin's access maps).
    public var key: String?
    public var refresh: Int64
    public var now: Date

    public init(id: String, key: String?, refresh: Int64 = 600, now: Date = Date()) {
        self.id = id
        self.key = key
        self.refresh = refresh
        self.now = now
    }

    /// Journey ids and keys end up in URLs and nginx maps: letters, digits, `_`, `-`, `.` only.
    public static func isValidName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && text != "." && text != ".."
            && text.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}

/// What ``OriginPublisher/publish(archives:to:journey:)`` wrote.
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
/// journeys/<id>.json               the only mutable documents (revalidated with ETags)
/// access/keys.map, grants.map      publishable keys and the journeys each may read
/// ```
///
/// Every file is written under a temporary name and renamed into place, so a reader never sees
/// half a file; content that is already there is not written again.
public enum OriginPublisher {
    public static func publish(archives: [String], to origin: String, journey: JourneyPublication?) throws(PackFailure) -> PublishReport {
        if let journey {
            guard JourneyPublication.isValidName(journey.id) else {
                throw PackFailure([PackError(.invalidConfiguration, "journey id '\(journey.id)' may use only letters, digits, '_', '-' and '.'")])
            }
            if let key = journey.key, !JourneyPublication.isValidName(key) {
                throw PackFailure([PackError(.invalidConfiguration, "key '\(key)' may use only letters, digits, '_', '-' and '.'")])
            }
        }
        do {
            for folder in ["", "/objects", "/bundles", "/journeys", "/access"] {
                try FileManager.default.createDirectory(atPath: origin + folder, withIntermediateDirectories: true)
            }
        } catch {
            throw PackFailure([PackError(.outputFailed, "cannot create the origin folders: \(error.localizedDescription)", path: origin)])
        }
        var report = PublishReport(bundles: [], journey: nil, changed: [])
        do throws(FormatError) {
            for archive in archives { report.bundles.append(try publishBundle(archive, to: origin, changed: &report.changed)) }
            if let journey, let last = report.bundles.last {
                report.journey = try publishJourney(journey, bundle: last.digest, to: origin, changed: &report.changed)
            }
        } catch {
            let code: PackError.Code = error.code == .io ? .outputFailed : .invalidConfiguration
            throw PackFailure([PackError(code, error.message, path: error.path ?? error.entry, cause: error)])
        }
        return report
    }

    /// Verifies an archive entry by entry while writing its objects, then its manifest and
    /// the archive itself.
    private static func publishBundle(_ archive: String, to origin: String, changed: inout [String]) throws(FormatError) -> PublishReport.Bundle {
        let reader = try ArchiveReader(path: archive)
        let (manifest, manifestBytes) = try BundleVerifier.readManifest(from: reader)
        let digest = SHA256Hasher.hash(manifestBytes)
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
            let output = exists ? nil : try AtomicFileWriter(folder: origin + "/objects", prefix: listed.digest.hex)
            let compressed = try CompressedCopy(of: listed, at: origin + "/" + relative + ".gz")
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
        }
        if let missing = manifest.files.first(where: { !seen.contains($0.path) }) {
            throw FormatError(.missingEntry, "listed in the manifest but not in the archive", path: archive, entry: missing.path)
        }
        let manifestPath = "bundles/\(digest.hex)/manifest.json"
        try FormatError.typed { try FileManager.default.createDirectory(atPath: origin + "/bundles/" + digest.hex, withIntermediateDirectories: true) }
        if try writeIfMissing(manifestBytes, to: manifestPath, in: origin) { written.append(manifestPath) }
        let archivePath = "bundles/\(digest.hex).tar.gz"
        if !FileManager.default.fileExists(atPath: origin + "/" + archivePath) {
            let input = try ReadableFile(path: archive)
            let output = try AtomicFileWriter(folder: origin + "/bundles", prefix: digest.hex)
            while true {
                let count = try input.read(into: buffer)
                if count == 0 { break }
                try output.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
            try output.commit(to: origin + "/" + archivePath)
            written.append(archivePath)
        }
        changed += written
        return PublishReport.Bundle(name: manifest.name, digest: digest, objectsWritten: objectsWritten, filesWritten: written.count)
    }

    private static func publishJourney(
        _ publication: JourneyPublication, bundle: Digest, to origin: String, changed: inout [String]
    ) throws(FormatError) -> JourneyDocument {
        let path = "journeys/\(publication.id).json"
        var previous: JourneyDocument?
        if FileManager.default.fileExists(atPath: origin + "/" + path) {
            previous = try JourneyDocument(decoding: try ReadableFile(path: origin + "/" + path).readAll(limit: 1 << 20))
        }
        var document: JourneyDocument
        if let previous, previous.bundle == bundle, previous.refresh == publication.refresh {
            document = previous
        } else {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            document = JourneyDocument(
                journey: publication.id, revision: (previous?.revision ?? 0) + 1, bundle: bundle, refresh: publication.refresh,
                published: formatter.string(from: publication.now))
            let full = origin + "/" + path
            let before = (try? FileManager.default.attributesOfItem(atPath: full)[.modificationDate] as? Date) ?? nil
            try replace(document.canonicalBytes, at: path, in: origin)
            // Static servers derive ETags from mtime (in seconds) and size; a new revision of the
            // same size in the same second must still get a new ETag.
            if let before {
                let floor = Date(timeIntervalSince1970: before.timeIntervalSince1970.rounded(.down) + 1)
                let after = (try? FileManager.default.attributesOfItem(atPath: full)[.modificationDate] as? Date) ?? nil
                if let after, after < floor {
                    try FormatError.typed { try FileManager.default.setAttributes([.modificationDate: floor], ofItemAtPath: full) }
                }
            }
            changed.append(path)
        }
        if let key = publication.key {
            // nginx compares plain map keys without regard to case; anchored regular
            // expressions are exact, so "PK_1" does not pass for "pk_1".
            if try addLine("\"~^\(escaped(key))$\" 1;", to: "access/keys.map", in: origin) { changed.append("access/keys.map") }
            if try addLine("\"~^\(escaped(key)):\(escaped(publication.id))$\" 1;", to: "access/grants.map", in: origin) {
                changed.append("access/grants.map")
            }
        } else {
            for map in ["access/keys.map", "access/grants.map"] where !FileManager.default.fileExists(atPath: origin + "/" + map) {
                try replace([], at: map, in: origin)
                changed.append(map)
            }
        }
        return document
    }

    /// A name (letters, digits, `_`, `-`, `.`) as a literal in a regular expression.
    private static func escaped(_ name: String) -> String {
        name.replacingOccurrences(of: ".", with: "\\.")
    }

    /// Adds a line to a map file unless it is there; returns whether the file changed.
    private static func addLine(_ line: String, to path: String, in origin: String) throws(FormatError) -> Bool {
        let full = origin + "/" + path
        var lines: [String] = []
        if FileManager.default.fileExists(atPath: full) {
            lines = String(decoding: try ReadableFile(path: full).readAll(limit: 64 << 20), as: UTF8.self).split(separator: "\n").map(String.init)
        }
        guard !lines.contains(line) else { return false }
        lines.append(line)
        try replace(Array((lines.sorted().joined(separator: "\n") + "\n").utf8), at: path, in: origin)
        return true
    }

    private static func writeIfMissing(_ bytes: [UInt8], to path: String, in origin: String) throws(FormatError) -> Bool {
        guard !FileManager.default.fileExists(atPath: origin + "/" + path) else { return false }
        try replace(bytes, at: path, in: origin)
        return true
    }

    private static func replace(_ bytes: [UInt8], at path: String, in origin: String) throws(FormatError) {
        let full = origin + "/" + path
        let folder = (full as NSString).deletingLastPathComponent
        let output = try AtomicFileWriter(folder: folder, prefix: (full as NSString).lastPathComponent)
        try FormatError.typed { try bytes.withUnsafeBytes { try output.write($0) } }
        try output.commit(to: full)
    }
}
