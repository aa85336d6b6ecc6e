import CArchive
import LarderFormat
import LarderToolSupport

/// The archive the install target builds from libFuzzer's bytes: entries of every kind, a
/// manifest made to match them (so installs can succeed and digests need not be guessed), one
/// of the ways manifests and archives go wrong, and the compression. libFuzzer mutates the
/// recipe; the archive is written fresh for each input.
///
/// ```
/// byte 0        container (bits 0-1): 0 sized gzip members, 1 one gzip stream, 2 plain tar,
///               3 raw: the rest of the input is the archive itself;
///               bit 2: ustar instead of pax headers; bits 3-7: the fault (``Fault``)
/// then entries  kind (bits 0-2: ``Kind``; bit 7: left out of the manifest), path length,
///               path bytes, data length (2 bytes, little-endian), data bytes
/// ```
struct InstallRecipe {
    enum Container: UInt8 { case members = 0, gzip, plainTar, raw }

    enum Kind: UInt8 { case file = 0, folder, symlink, hardlink, device, fifo, file2, file3 }

    /// What is wrong with the archive, if anything (values 0-7 and past 19 are none).
    enum Fault: UInt8 {
        case none = 0
        /// The manifest lists a file the archive lacks.
        case phantomFile = 8
        /// One file's size in the manifest is one more than its bytes.
        case wrongSize
        /// One file's digest in the manifest is another file's.
        case wrongDigest
        /// The manifest comes after the first file.
        case manifestNotFirst
        /// The manifest entry appears twice.
        case manifestTwice
        /// The install expects another bundle digest.
        case unexpectedDigest
        /// The manifest names an entry that is not a document.
        case entryNotDocument
        /// The manifest's bytes are valid but not canonical (spaces after the first `{`).
        case notCanonical
        /// The manifest lists a folder's path as a file.
        case folderAsFile
        /// The first file's manifest path has a trailing slash.
        case trailingSlash
        /// The manifest is not valid JSON (cut in half).
        case cutManifest
        /// Every file is listed twice.
        case listedTwice
    }

    struct Entry {
        var kind: Kind
        var listed: Bool
        var path: [UInt8]
        var data: [UInt8]
    }

    var container: Container
    var ustar: Bool
    var fault: Fault
    var entries: [Entry]
    /// The archive bytes for ``Container/raw``.
    var raw: [UInt8]

    init(_ bytes: UnsafeRawBufferPointer) {
        let mode = bytes.first ?? 0
        container = Container(rawValue: mode & 3)!
        ustar = mode & 4 != 0
        fault = Fault(rawValue: mode >> 3) ?? .none
        entries = []
        raw = container == .raw ? Array(bytes.dropFirst()) : []
        guard container != .raw else { return }
        var offset = 1
        func take(_ count: Int) -> [UInt8] {
            let end = min(bytes.count, offset + count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
        while offset + 2 <= bytes.count, entries.count < 64 {
            let kindByte = bytes[offset]
            let pathLength = Int(bytes[offset + 1])
            offset += 2
            let path = take(pathLength)
            let lengthBytes = take(2)
            let length = lengthBytes.count == 2 ? Int(lengthBytes[0]) | Int(lengthBytes[1]) << 8 : 0
            let data = take(length)
            entries.append(Entry(kind: Kind(rawValue: kindByte & 7)!, listed: kindByte & 0x80 == 0, path: path, data: data))
        }
    }

    /// The recipe's bytes (what ``init(_:)`` reads), for seeds.
    static func encode(container: Container, ustar: Bool = false, fault: Fault = .none, entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = [container.rawValue | (ustar ? 4 : 0) | fault.rawValue << 3]
        for entry in entries {
            let path = entry.path.prefix(255)
            let data = entry.data.prefix(0xFFFF)
            out.append(entry.kind.rawValue | (entry.listed ? 0 : 0x80))
            out.append(UInt8(path.count))
            out += path
            out += [UInt8(data.count & 0xFF), UInt8(data.count >> 8)]
            out += data
        }
        return out
    }

    static func encodeRaw(_ archive: [UInt8]) -> [UInt8] { [Container.raw.rawValue] + archive }

    /// The manifest's JSON for the listed files, with the fault applied to it; files keep the
    /// order of their path bytes, as the canonical form has them.
    func manifestBytes() -> [UInt8] {
        var files: [(path: String, bytes: [UInt8])] = entries.filter { $0.listed && $0.kind.isFile }.map {
            (String(decoding: $0.path, as: UTF8.self), $0.data)
        }
        if fault == .phantomFile { files.append(("phantom.js", Array("phantom".utf8))) }
        if fault == .listedTwice { files += files }
        if fault == .folderAsFile, let folder = entries.first(where: { $0.kind == .folder }) {
            files.append((String(decoding: folder.path, as: UTF8.self), []))
        }
        files.sort { BundlePath.precedes($0.path, $1.path) }
        var listed: [JSONValue] = []
        for (index, file) in files.enumerated() {
            var digest = SHA256Hasher.hash(file.bytes)
            var size = Int64(file.bytes.count)
            if index == 0, fault == .wrongSize { size += 1 }
            if index == 0, fault == .wrongDigest { digest = SHA256Hasher.hash(file.bytes + [0]) }
            let path = index == 0 && fault == .trailingSlash ? file.path + "/" : file.path
            let (mediaType, role) = MediaType.classify(file.path)
            listed.append(
                .object([
                    "path": .string(path), "digest": .string(digest.description), "size": .int(size),
                    "mediaType": .string(mediaType), "role": .string(role.rawValue), "essential": .bool(index % 2 == 0),
                ]))
        }
        let documents = files.filter { MediaType.classify($0.path).role == .document }
        var entry = documents.first?.path ?? "index.html"
        if fault == .entryNotDocument { entry = files.first { MediaType.classify($0.path).role != .document }?.path ?? "style.css" }
        let manifest = JSONValue.object([
            "format": .int(1), "name": .string("fuzz"), "entry": .string(entry),
            "renderer": .object(["protocol": .int(1), "capabilities": .array([.string("prepare"), .string("visibility")])]),
            "files": .array(listed),
        ])
        var bytes = manifest.canonicalBytes
        if fault == .notCanonical { bytes.insert(0x20, at: 1) }
        if fault == .cutManifest { bytes.removeLast(bytes.count / 2) }
        return bytes
    }

    /// The archive to install.
    func archive() throws(FormatError) -> [UInt8] {
        if container == .raw { return raw }
        let manifest = TestArchive.Entry(path: Array(Manifest.entryName.utf8), data: manifestBytes())
        var tarEntries = entries.map(\.tarEntry)
        switch fault {
        case .manifestNotFirst: tarEntries.insert(manifest, at: min(1, tarEntries.count))
        case .manifestTwice: tarEntries.insert(contentsOf: [manifest, manifest], at: 0)
        default: tarEntries.insert(manifest, at: 0)
        }
        let format: TestArchive.Format = ustar ? .ustar : .pax
        switch container {
        case .gzip: return TestArchive.make(tarEntries, format: format, gzip: true)
        case .plainTar: return TestArchive.make(tarEntries, format: format, gzip: false)
        case .members, .raw:
            let tar = TestArchive.make(tarEntries, format: format, gzip: false)
            var out: [UInt8] = []
            let writer = GzipMemberWriter(level: 1, pieceSize: GzipMemberWriter.minimumPieceSize, concurrency: 1) { (bytes) throws(FormatError) in
                out += bytes
            }
            try FormatError.typed { try tar.withUnsafeBytes { try writer.write($0) } }
            try writer.finish()
            return out
        }
    }
}

extension InstallRecipe.Kind {
    var isFile: Bool { self == .file || self == .file2 || self == .file3 }
}

extension InstallRecipe.Entry {
    var tarEntry: TestArchive.Entry {
        switch kind {
        case .file, .file2, .file3: return TestArchive.Entry(path: path, data: data)
        case .folder: return TestArchive.Entry(path: path, type: larder_ae_ifdir())
        case .symlink: return TestArchive.Entry(path: path, type: larder_ae_iflnk(), symlink: String(decoding: data, as: UTF8.self))
        case .hardlink: return TestArchive.Entry(path: path, hardlink: String(decoding: data, as: UTF8.self))
        case .device: return TestArchive.Entry(path: path, type: larder_ae_ifchr())
        case .fifo: return TestArchive.Entry(path: path, type: larder_ae_ififo())
        }
    }
}
