import CArchive
#if canImport(Glibc)
import Glibc
#endif

/// Reads a tar+gzip bundle archive as a stream through libarchive, one entry at a time,
/// refusing anything that could hurt the reader: more entries or bytes than the limits allow, a
/// compression ratio past the limit (a gzip bomb), unsafe, non-UTF-8, over-long or repeated
/// paths, and every entry type but regular files and folders (links, hard links, devices,
/// FIFOs, sockets).
///
/// Archives written by ``GzipMemberWriter`` (gzip members that carry their size) are inflated
/// on several threads by a `MemberInflater`, which checks each member's framing, size,
/// CRC-32 and length; any other gzip stream is inflated by libarchive's gzip filter (zlib).
/// Either way the whole stream is read, to its last byte, before the last entry is reported.
public final class ArchiveReader {
    /// What a reader accepts.
    public struct Limits: Sendable {
        /// The most entries (files and folders).
        public var maximumEntries: Int
        /// The most uncompressed file bytes in all.
        public var maximumTotalBytes: Int64
        /// The largest uncompressed-to-compressed ratio, checked once past `ratioFloor` bytes.
        public var maximumRatio: Int64
        /// Uncompressed bytes read before the ratio is checked; small archives of text may
        /// legitimately compress very well.
        public var ratioFloor: Int64

        public init(
            maximumEntries: Int = Manifest.maximumFiles, maximumTotalBytes: Int64 = 8 << 30, maximumRatio: Int64 = 200,
            ratioFloor: Int64 = 1 << 20
        ) {
            self.maximumEntries = maximumEntries
            self.maximumTotalBytes = maximumTotalBytes
            self.maximumRatio = maximumRatio
            self.ratioFloor = ratioFloor
        }

        public static let `default` = Limits()
    }

    /// One entry's header.
    public struct Entry: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case file, folder }
        /// The path, without a trailing `/` for folders.
        public var path: String
        public var kind: Kind
        /// Declared size in bytes (0 for folders).
        public var size: Int64
    }

    /// Supplies compressed bytes: fills the buffer and returns the count, 0 at the end.
    public typealias Source = (UnsafeMutableRawBufferPointer) throws(FormatError) -> Int

    private let archive: OpaquePointer
    private let context: ReadContext
    private let limits: Limits
    private let displayName: String?
    private var seenPaths: Set<String> = []
    private var entryCount = 0
    private var declaredBytes: Int64 = 0
    private var current: Entry?
    private var currentRead: Int64 = 0
    private var uncompressedRead: Int64 = 0

    /// Reads from a source of compressed bytes.
    /// - Parameters:
    ///   - displayName: the archive's name for messages (a path or URL).
    ///   - limits: what the archive may hold (entries, bytes, compression ratio).
    ///   - source: gives the compressed bytes, a buffer at a time; an empty read ends the stream.
    public convenience init(limits: Limits = .default, displayName: String? = nil, source: @escaping Source) throws(FormatError) {
        try self.init(limits: limits, displayName: displayName, inflation: .default, source: source)
    }

    /// Reads from a source of compressed bytes; a stream of sized gzip members
    /// (``GzipMemberWriter``'s, told apart by the first member's header) is inflated on
    /// several threads by a ``MemberInflater`` as `inflation` says and handed to libarchive
    /// as plain tar; anything else (a single gzip stream, members without the size field, no
    /// gzip at all) goes through libarchive's gzip filter (zlib).
    init(
        limits: Limits = .default, displayName: String? = nil, inflation: MemberInflater.Configuration, source: @escaping Source
    ) throws(FormatError) {
        self.limits = limits
        self.displayName = displayName
        var first = [UInt8](repeating: 0, count: GzipMemberHeader.size)
        let count = try FormatError.typed { try first.withUnsafeMutableBytes { try MemberInflater.readFully($0, from: source) } }
        guard let archive = archive_read_new() else { fatalError("archive_read_new: out of memory") }
        self.archive = archive
        if count == first.count, first.withUnsafeBytes({ GzipMemberHeader.memberSize($0) }) != nil {
            let inflater = MemberInflater(firstHeader: first, configuration: inflation, displayName: displayName, source: source)
            self.context = ReadContext(inflater: inflater)
            archive_read_support_filter_none(archive)
        } else {
            self.context = ReadContext(source: source, replaying: Array(first[0..<count]), ended: count < first.count)
            archive_read_support_filter_gzip(archive)
        }
        archive_read_support_format_tar(archive)
        // Read on past the end-of-archive marker to the end of the gzip stream, so a cut-off
        // or damaged stream end (trailer, CRC, bytes after the last member) is an error rather
        // than silently ignored.
        archive_read_set_options(archive, "tar:read_concatenated_archives")
        let opaque = Unmanaged.passUnretained(context).toOpaque()
        let status = archive_read_open(archive, opaque, nil, tarReadCallback, nil)
        if status != ARCHIVE_OK { throw failure(status, entry: nil) }
    }

    /// Reads the archive file at `path`.
    public convenience init(path: String, limits: Limits = .default) throws(FormatError) {
        let file = try ReadableFile(path: path)
        try self.init(limits: limits, displayName: path) { (buffer) throws(FormatError) in try file.read(into: buffer) }
    }

    deinit { archive_read_free(archive) }

    /// Whether the archive's gzip members are inflated by a ``MemberInflater``; for tests.
    var inflatesMembers: Bool { context.inflater != nil }
    /// The most gzip members the ``MemberInflater`` held at once; for tests.
    var peakMembersInFlight: Int { context.inflater?.peakInFlight ?? 0 }

    /// Moves to the next entry, skipping the rest of the current one.
    /// - Returns: the entry's header, or nil at the end of the archive.
    /// - Throws: ``FormatError`` for malformed data or a broken rule, naming the entry.
    public func next() throws(FormatError) -> Entry? {
        var handle: OpaquePointer?
        let status = archive_read_next_header(archive, &handle)
        if status == ARCHIVE_EOF { current = nil; return nil }
        guard status >= ARCHIVE_WARN, let handle else { throw failure(status, entry: current?.path) }

        let path = try entryPath(handle)
        entryCount += 1
        guard entryCount <= limits.maximumEntries else {
            throw error(.limitExceeded, "more than \(limits.maximumEntries) entries", entry: path)
        }
        let type = archive_entry_filetype(handle)
        if archive_entry_hardlink(handle) != nil {
            throw error(.unsupportedEntryType, "hard links are not allowed", entry: path)
        }
        let kind: Entry.Kind
        switch type {
        case larder_ae_ifreg(): kind = .file
        case larder_ae_ifdir(): kind = .folder
        case larder_ae_iflnk(): throw error(.unsupportedEntryType, "symbolic links are not allowed", entry: path)
        case larder_ae_ifchr(), larder_ae_ifblk():
            throw error(.unsupportedEntryType, "device files are not allowed", entry: path)
        case larder_ae_ififo(): throw error(.unsupportedEntryType, "FIFOs are not allowed", entry: path)
        default: throw error(.unsupportedEntryType, "entry type \(type) is not allowed", entry: path)
        }
        let size = kind == .file ? archive_entry_size(handle) : 0
        guard size >= 0 else { throw error(.malformedArchive, "negative size", entry: path) }
        // Compared before adding: a pax `size` record may hold nearly Int64.max, and the sum
        // would overflow (found by the archive fuzz target).
        guard size <= limits.maximumTotalBytes - declaredBytes else {
            throw error(.limitExceeded, "more than \(limits.maximumTotalBytes) uncompressed bytes in all", entry: path)
        }
        declaredBytes += size
        guard seenPaths.insert(path).inserted else {
            throw error(.duplicateEntry, "the archive holds this path more than once", entry: path)
        }
        let entry = Entry(path: path, kind: kind, size: size)
        current = entry
        currentRead = 0
        return entry
    }

    /// Reads the current entry's bytes.
    /// - Returns: the count read; 0 at the end of the entry.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FormatError) -> Int {
        guard let entry = current, let base = buffer.baseAddress else { return 0 }
        let count = archive_read_data(archive, base, buffer.count)
        if count < 0 { throw failure(Int32(count), entry: entry.path) }
        currentRead += Int64(count)
        uncompressedRead += Int64(count)
        guard currentRead <= entry.size else {
            throw error(.malformedArchive, "entry holds more bytes than its header says", entry: entry.path)
        }
        if !limits.admitsRatio(uncompressed: uncompressedRead, compressed: context.bytesRead) {
            throw error(
                .limitExceeded, "compression ratio above \(limits.maximumRatio):1 (a gzip bomb?)", entry: entry.path)
        }
        if count == 0 && currentRead < entry.size {
            throw error(.truncated, "archive ends inside this entry (\(currentRead) of \(entry.size) bytes)", entry: entry.path)
        }
        return count
    }

    /// Reads the whole current entry into memory, refusing entries larger than `limit` bytes.
    public func readAll(limit: Int) throws(FormatError) -> [UInt8] {
        guard let entry = current else { return [] }
        guard entry.size <= Int64(limit) else {
            throw error(.limitExceeded, "entry is larger than \(limit) bytes", entry: entry.path)
        }
        var bytes = [UInt8](repeating: 0, count: Int(entry.size))
        var filled = 0
        while filled < bytes.count {
            let count = try FormatError.typed {
                try bytes.withUnsafeMutableBytes { try read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }
            }
            if count == 0 { break }
            filled += count
        }
        return bytes
    }

    private func entryPath(_ handle: OpaquePointer) throws(FormatError) -> String {
        var bytes: [UInt8]
        if let utf8 = archive_entry_pathname_utf8(handle) {
            bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(utf8).assumingMemoryBound(to: UInt8.self), count: strlen(utf8)))
        } else if let raw = archive_entry_pathname(handle) {
            bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw)))
        } else {
            throw error(.invalidPath, "entry has no name", entry: nil)
        }
        if archive_entry_filetype(handle) == larder_ae_ifdir(), bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        do throws(FormatError) { return try BundlePath.validate(bytes: bytes) } catch {
            throw FormatError(error.code, error.message, path: displayName, entry: error.entry)
        }
    }

    /// What a file that is not a tar archive (gzip-compressed or not) is called.
    static let notAnArchive =
        "not a larder archive: these bytes are not a tar archive, gzip-compressed or not (give a .tar.gz 'larder pack' wrote)"

    private func error(_ code: FormatError.Code, _ message: String, entry: String?) -> FormatError {
        FormatError(code, message, path: displayName, entry: entry)
    }

    private func failure(_ status: Int32, entry: String?) -> FormatError {
        if let sourceError = context.error { return sourceError }
        let text = archive_error_string(archive).map { String(cString: $0) } ?? "libarchive status \(status)"
        // libarchive's words for "no reader it has bids for these bytes": only tar is enabled.
        if text.hasPrefix("Unrecognized archive format") {
            return error(.malformedArchive, Self.notAnArchive, entry: entry)
        }
        let lowered = text.lowercased()
        let truncated = lowered.contains("truncated") || lowered.contains("premature end") || lowered.contains("unexpected end")
        return error(truncated ? .truncated : .malformedArchive, text, entry: entry)
    }
}

/// Where libarchive's reads come from: the source itself (libarchive inflates), or a
/// ``MemberInflater`` over it (libarchive reads plain tar).
private final class ReadContext {
    let source: ArchiveReader.Source?
    let inflater: MemberInflater?
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Bytes read from the source before libarchive opened, handed to it first.
    var replay: [UInt8]
    /// Whether the source has ended (it is not asked again).
    var ended: Bool
    /// Compressed bytes read from the source (by libarchive or by the inflater).
    var bytesRead: Int64 = 0
    var error: FormatError?

    init(source: @escaping ArchiveReader.Source, replaying replay: [UInt8], ended: Bool) {
        self.source = source
        self.inflater = nil
        self.replay = replay
        self.ended = ended
    }

    init(inflater: MemberInflater) {
        self.source = nil
        self.inflater = inflater
        self.replay = []
        self.ended = false
    }

    deinit { buffer.deallocate() }

    /// The next bytes for libarchive, valid until the next call; empty at the end.
    func next() throws(FormatError) -> UnsafeRawBufferPointer {
        if let inflater {
            let block = try inflater.next()
            bytesRead = Int64(GzipMemberHeader.size) + inflater.compressedBytesRead
            return block
        }
        var count = 0
        if !replay.isEmpty {
            count = replay.count
            replay.withUnsafeBytes { buffer.copyMemory(from: $0) }
            replay = []
        } else if !ended, let source {
            count = try source(buffer)
            if count == 0 { ended = true }
        }
        bytesRead += Int64(count)
        return UnsafeRawBufferPointer(rebasing: buffer[0..<count])
    }
}

private func tarReadCallback(
    _ archive: OpaquePointer?, _ clientData: UnsafeMutableRawPointer?,
    _ out: UnsafeMutablePointer<UnsafeRawPointer?>?
) -> Int {
    let context = Unmanaged<ReadContext>.fromOpaque(clientData!).takeUnretainedValue()
    do throws(FormatError) {
        let block = try context.next()
        out?.pointee = block.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(context.buffer.baseAddress)
        return block.count
    } catch {
        context.error = error
        return -1
    }
}
