import Foundation
import LarderFormat
import LarderTransport

/// The disk space a fetch holds at its peak, so that it refuses before downloading what it
/// could not install: a disk with room for the archive but not for the archive and the
/// objects it unpacks into would otherwise download the whole archive on every attempt, fail
/// at the install, and delete it again.
///
/// The peak: an archive fetch keeps the archive until its install committed, and the install
/// writes every object it stores beside it; an object fetch downloads each missing object once
/// and the install moves it into the store. Either way the index grows by the bundle's rows.
struct InstallSpace: Sendable, Equatable {
    /// Bytes of the objects the install writes (or the fetch downloads), each rounded up to a
    /// file-system block.
    var objects: Int64
    /// Room for the index's new rows and its log.
    var index: Int64

    /// The blocks a file takes (4 KiB: ext4, btrfs, tmpfs and xfs by default).
    static let block: Int64 = 4096

    /// What an install of `manifest` writes when it stores `stored` (distinct objects), besides
    /// the download.
    init(_ manifest: Manifest, storing stored: Set<Digest>, manifestBytes: Int) {
        var sizes: [Digest: Int64] = [:]
        for file in manifest.files where stored.contains(file.digest) { sizes[file.digest] = file.size }
        objects = sizes.values.reduce(0) { $0 + (($1 + Self.block - 1) / Self.block) * Self.block }
        // The manifest is stored in its row; each file has a row; SQLite's log writes whole pages.
        index = 64 << 10 + 2 * Int64(manifestBytes) + 256 * Int64(manifest.files.count)
    }

    /// The install's share of the peak.
    var total: Int64 { objects + index }

    /// Bytes free for an unprivileged writer on the file system holding `path` (`statvfs(3)`),
    /// if it can tell.
    static func free(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The refusal of a fetch that needs `download` more bytes for its download and ``total``
    /// for its install, when `free` are free.
    func refusal(download: Int64, free: Int64, url: URL?, bundle: Digest) -> TransportError {
        let need = download + total
        let what = download > 0 ? "\(download) bytes to download and \(total) to install" : "\(total) bytes to install"
        return TransportError(
            .diskFull,
            "not enough space to fetch and install the bundle: it needs \(need) bytes (\(what)) and \(free) are free, "
                + "so nothing was downloaded; free space (larder cache gc, larder cache evict) and fetch again",
            url: url, digest: bundle)
    }
}
