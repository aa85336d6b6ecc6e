import CArchive
import Foundation
import LarderFormat

/// Builds archives the way an attacker or a broken tool might, straight through libarchive,
/// to feed the reader things Larder itself never writes.
public enum TestArchive {
    public struct Entry: Sendable {
        public var path: [UInt8]
        public var type: UInt32 = larder_ae_ifreg()
        public var data: [UInt8] = []
        public var symlink: String? = nil
        public var hardlink: String? = nil

        public init(path: [UInt8], type: UInt32 = larder_ae_ifreg(), data: [UInt8] = [], symlink: String? = nil, hardlink: String? = nil) {
            self.path = path
            self.type = type
            self.data = data
            self.symlink = symlink
            self.hardlink = hardlink
        }

        public static func file(_ path: String, _ data: [UInt8] = Array("hello".utf8)) -> Entry {
            Entry(path: Array(path.utf8), data: data)
        }
    }

    public enum Format: Sendable { case ustar, pax }

    public static func make(_ entries: [Entry], format: Format = .pax, gzip: Bool = true) -> [UInt8] {
        let archive = archive_write_new()!
        defer { archive_write_free(archive) }
        switch format {
        case .ustar: archive_write_set_format_ustar(archive)
        case .pax: archive_write_set_format_pax_restricted(archive)
        }
        if gzip { archive_write_add_filter_gzip(archive) } else { archive_write_add_filter_none(archive) }
        // No padding after the compressed stream: its last bytes are the gzip trailer.
        archive_write_set_bytes_in_last_block(archive, 1)
        let sink = Collector()
        let opaque = Unmanaged.passUnretained(sink).toOpaque()
        archive_write_open2(archive, opaque, nil, { _, client, buffer, length in
            let sink = Unmanaged<Collector>.fromOpaque(client!).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: length))
            return length
        }, nil, nil)
        for item in entries {
            let entry = archive_entry_new()!
            var path = item.path.map { CChar(bitPattern: $0) }
            path.append(0)
            archive_entry_copy_pathname(entry, path)
            archive_entry_set_filetype(entry, item.type)
            archive_entry_set_perm(entry, 0o644)
            archive_entry_set_size(entry, Int64(item.data.count))
            if let target = item.symlink { archive_entry_copy_symlink(entry, target) }
            if let target = item.hardlink { archive_entry_copy_hardlink(entry, target) }
            if item.type == larder_ae_ifchr() { archive_entry_set_rdev(entry, dev_t(0x0103)) }
            archive_write_header(archive, entry)
            if !item.data.isEmpty { _ = item.data.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) } }
            archive_entry_free(entry)
        }
        archive_write_close(archive)
        return sink.bytes
    }

    private final class Collector { var bytes: [UInt8] = [] }

    /// A reader over bytes in memory.
    public static func reader(_ bytes: [UInt8], limits: ArchiveReader.Limits = .default) throws(FormatError) -> ArchiveReader {
        let source = MemorySource(bytes)
        return try ArchiveReader(limits: limits, displayName: "test.tar.gz") { (buffer) throws(FormatError) in source.read(into: buffer) }
    }

    /// Reads every entry and its bytes; returns paths and contents.
    public static func readAll(_ reader: ArchiveReader) throws(FormatError) -> [(String, [UInt8])] {
        var result: [(String, [UInt8])] = []
        while let entry = try reader.next() {
            result.append((entry.path, entry.kind == .file ? try reader.readAll(limit: 1 << 30) : []))
        }
        return result
    }
}

public final class MemorySource: @unchecked Sendable {
    let bytes: [UInt8]
    var offset = 0
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, bytes.count - offset)
        bytes.withUnsafeBytes { raw in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count]))
        }
        offset += count
        return count
    }
}

/// How ``makeBundleArchive(files:name:level:gzip:)`` compresses the tar stream.
public enum ArchiveGzip: Sendable {
    /// Sized gzip members, as `larder pack` writes them (``GzipMemberWriter``).
    case members(pieceSize: Int = GzipMemberWriter.defaultPieceSize, concurrency: Int = 2)
    /// One gzip stream (``ParallelGzipWriter``), as archives were written before issue 14.
    case singleStream
}

/// Writes a real bundle archive with Larder's own writers into memory.
public func makeBundleArchive(
    files: [String: [UInt8]], name: String = "test", level: Int = 6, gzip: ArchiveGzip = .members()
) throws -> (archive: [UInt8], manifest: Manifest) {
    let entries = files.map { path, bytes in
        Manifest.File(
            path: path, digest: SHA256Hasher.hash(bytes), size: Int64(bytes.count),
            mediaType: MediaType.classify(path).mediaType, role: MediaType.classify(path).role, essential: true)
    }
    let manifest = try Manifest(name: name, entry: "index.html", renderer: .init(), files: entries)
    var output: [UInt8] = []
    let write: (UnsafeRawBufferPointer) throws(FormatError) -> Void
    let finish: () throws(FormatError) -> Void
    switch gzip {
    case .members(let pieceSize, let concurrency):
        let writer = GzipMemberWriter(level: level, pieceSize: pieceSize, concurrency: concurrency) { (bytes) throws(FormatError) in
            output.append(contentsOf: bytes)
        }
        write = writer.write
        finish = writer.finish
    case .singleStream:
        let writer = ParallelGzipWriter(level: level) { (bytes) throws(FormatError) in output.append(contentsOf: bytes) }
        write = writer.write
        finish = writer.finish
    }
    let tar = try TarWriter { (bytes) throws(FormatError) in try write(bytes) }
    try tar.addFile(path: Manifest.entryName, bytes: manifest.canonicalBytes)
    for file in manifest.files { try tar.addFile(path: file.path, bytes: files[file.path]!) }
    try tar.finish()
    try finish()
    return (output, manifest)
}

/// The byte ranges of the sized gzip members in `bytes`, found by their size fields (bytes
/// 16..<20 of each header, little-endian), up to the first that does not fit.
public func sizedGzipMembers(_ bytes: [UInt8]) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var offset = 0
    while offset + 20 <= bytes.count, bytes[offset] == 0x1f, bytes[offset + 1] == 0x8b, bytes[offset + 3] == 4 {
        let size = (0..<4).reduce(0) { $0 | Int(bytes[offset + 16 + $1]) << (8 * $1) }
        guard size > 0, offset + size <= bytes.count else { break }
        ranges.append(offset..<offset + size)
        offset += size
    }
    return ranges
}
