import CArchive
#if canImport(Glibc)
import Glibc
#endif

/// libarchive translates names through the calling thread's locale, so the same name would
/// give different headers under "C" and a UTF-8 locale. Every call runs under C.UTF-8 on the
/// calling thread only (`uselocale`), whatever the process locale is.
nonisolated(unsafe) private let utf8Locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)

@inline(__always)
private func underUTF8Locale<T>(_ body: () throws(FormatError) -> T) throws(FormatError) -> T {
    guard let utf8Locale else { return try body() }
    let previous = uselocale(utf8Locale)
    defer { uselocale(previous) }
    return try body()
}

/// Writes a deterministic tar stream through libarchive (`archive_write_*`, pax-restricted
/// format, no compression filter) and hands the bytes to a sink.
///
/// Every header is the same on every machine: mtime fixed by the caller (0 or
/// SOURCE_DATE_EPOCH), uid and gid 0 with no user or group names, modes 0644 for files and 0755
/// for folders, no atime, ctime or extended attributes. Parent folders get their own entries the
/// first time a file inside them is added.
///
/// Records are 512 bytes (tar's block; libarchive's default is 10 KiB): every byte of an entry
/// reaches the sink before the next entry's header, so a sink can tell which file the bytes
/// it gets belong to (``GzipMemberWriter`` stores media pieces by that).
public final class TarWriter {
    private let archive: OpaquePointer
    private let context: WriteContext
    private let modificationTime: Int64
    private var writtenFolders: Set<String> = []
    private var closed = false

    /// - Parameters:
    ///   - modificationTime: seconds since 1970 written for every entry.
    ///   - sink: receives the tar bytes in order.
    public init(modificationTime: Int64 = 0, sink: @escaping ParallelGzipWriter.Sink) throws(FormatError) {
        guard utf8Locale != nil else {
            throw FormatError(.io, "the C.UTF-8 locale is not available; libarchive cannot write UTF-8 names reproducibly")
        }
        guard let archive = archive_write_new() else { fatalError("archive_write_new: out of memory") }
        self.archive = archive
        self.context = WriteContext(sink: sink)
        self.modificationTime = modificationTime
        try check(archive_write_set_format_pax_restricted(archive), "archive_write_set_format_pax_restricted")
        try check(archive_write_add_filter_none(archive), "archive_write_add_filter_none")
        try check(archive_write_set_bytes_per_block(archive, 512), "archive_write_set_bytes_per_block")
        let opaque = Unmanaged.passUnretained(context).toOpaque()
        let status = try underUTF8Locale { archive_write_open2(archive, opaque, nil, tarWriteCallback, nil, nil) }
        try check(status, "archive_write_open2")
    }

    deinit {
        if !closed { archive_write_fail(archive) }
        archive_write_free(archive)
    }

    /// Adds a regular file whose bytes `contents` writes through the closure it is given.
    /// - Parameters:
    ///   - path: a valid ``BundlePath``.
    ///   - size: the exact number of bytes `contents` will write.
    ///   - executable: mode 0755 instead of 0644.
    ///   - contents: writes the file's bytes through the closure it is given, exactly `size` in
    ///     all.
    public func addFile(
        path: String, size: Int64, executable: Bool = false,
        contents: ((UnsafeRawBufferPointer) throws(FormatError) -> Void) throws(FormatError) -> Void
    ) throws(FormatError) {
        try underUTF8Locale { () throws(FormatError) in
            try addFileUnderLocale(path: path, size: size, executable: executable, contents: contents)
        }
    }

    private func addFileUnderLocale(
        path: String, size: Int64, executable: Bool,
        contents: ((UnsafeRawBufferPointer) throws(FormatError) -> Void) throws(FormatError) -> Void
    ) throws(FormatError) {
        try addParentFolders(of: path)
        try writeHeader(path: path, type: larder_ae_ifreg(), permissions: executable ? 0o755 : 0o644, size: size)
        var written: Int64 = 0
        try contents { (bytes) throws(FormatError) in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            written += Int64(bytes.count)
            guard written <= size else {
                throw FormatError(.io, "file grew while it was being archived", entry: path)
            }
            let result = archive_write_data(archive, base, bytes.count)
            if result < 0 { throw failure("archive_write_data", entry: path) }
        }
        guard written == size else {
            throw FormatError(.io, "file changed size while it was being archived (\(written) of \(size) bytes)", entry: path)
        }
        try check(archive_write_finish_entry(archive), "archive_write_finish_entry", entry: path)
    }

    /// Adds a regular file from bytes in memory.
    public func addFile(path: String, bytes: [UInt8]) throws(FormatError) {
        try addFile(path: path, size: Int64(bytes.count)) { (write) throws(FormatError) in
            try FormatError.typed { try bytes.withUnsafeBytes { try write($0) } }
        }
    }

    /// Writes the end-of-archive marker and flushes everything to the sink.
    public func finish() throws(FormatError) {
        closed = true
        let status = try underUTF8Locale { archive_write_close(archive) }
        try check(status, "archive_write_close")
    }

    private func addParentFolders(of path: String) throws(FormatError) {
        var prefix = ""
        for segment in path.split(separator: "/").dropLast() {
            prefix += segment + "/"
            if writtenFolders.insert(prefix).inserted {
                try writeHeader(path: prefix, type: larder_ae_ifdir(), permissions: 0o755, size: 0)
                try check(archive_write_finish_entry(archive), "archive_write_finish_entry", entry: prefix)
            }
        }
    }

    private func writeHeader(path: String, type: UInt32, permissions: UInt32, size: Int64) throws(FormatError) {
        guard let entry = archive_entry_new() else { fatalError("archive_entry_new: out of memory") }
        defer { archive_entry_free(entry) }
        archive_entry_copy_pathname(entry, path)
        archive_entry_set_filetype(entry, type)
        archive_entry_set_perm(entry, mode_t(permissions))
        archive_entry_set_size(entry, size)
        archive_entry_set_mtime(entry, time_t(modificationTime), 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        let status = archive_write_header(archive, entry)
        if status < ARCHIVE_WARN { throw failure("archive_write_header", entry: path) }
    }

    private func check(_ status: Int32, _ function: String, entry: String? = nil) throws(FormatError) {
        if status < ARCHIVE_WARN { throw failure(function, entry: entry) }
    }

    private func failure(_ function: String, entry: String?) -> FormatError {
        if let error = context.error { return error }
        let text = archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
        return FormatError(.io, "\(function) failed: \(text)", entry: entry)
    }
}

private final class WriteContext {
    let sink: ParallelGzipWriter.Sink
    var error: FormatError?
    init(sink: @escaping ParallelGzipWriter.Sink) { self.sink = sink }
}

private func tarWriteCallback(
    _ archive: OpaquePointer?, _ clientData: UnsafeMutableRawPointer?, _ buffer: UnsafeRawPointer?, _ length: Int
) -> Int {
    let context = Unmanaged<WriteContext>.fromOpaque(clientData!).takeUnretainedValue()
    do throws(FormatError) {
        try context.sink(UnsafeRawBufferPointer(start: buffer, count: length))
        return length
    } catch {
        context.error = error
        return -1
    }
}
