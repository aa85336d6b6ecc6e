import CArchive
import Foundation

/// What an archive holds as libarchive alone reads it (every filter, tar only, no rules of
/// Larder's): the independent account an install is checked against.
struct ArchiveCensus {
    struct Entry {
        var path: [UInt8]
        var type: UInt32
        var isHardLink: Bool
        var size: Int64
    }

    var entries: [Entry] = []

    /// nil when libarchive cannot read the archive to its end.
    init?(_ bytes: [UInt8]) {
        guard let archive = archive_read_new() else { return nil }
        defer { archive_read_free(archive) }
        archive_read_support_filter_all(archive)
        archive_read_support_format_tar(archive)
        let opened = bytes.withUnsafeBytes { archive_read_open_memory(archive, $0.baseAddress, $0.count) }
        guard opened == ARCHIVE_OK else { return nil }
        var handle: OpaquePointer?
        while true {
            let status = archive_read_next_header(archive, &handle)
            if status == ARCHIVE_EOF { return }
            guard status >= ARCHIVE_WARN, let handle else { return nil }
            let name = archive_entry_pathname(handle)
            let path = name.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
            entries.append(
                Entry(
                    path: path, type: archive_entry_filetype(handle), isHardLink: archive_entry_hardlink(handle) != nil,
                    size: archive_entry_size(handle)))
            guard archive_read_data_skip(archive) == ARCHIVE_OK else { return nil }
        }
    }

    /// The entry's path as a bundle path: a folder's trailing `/` dropped.
    static func bundlePath(_ entry: Entry) -> String {
        var path = entry.path
        if entry.type == larder_ae_ifdir(), path.last == UInt8(ascii: "/") { path.removeLast() }
        return String(decoding: path, as: UTF8.self)
    }
}
