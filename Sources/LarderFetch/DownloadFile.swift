import Foundation
import LarderFormat
import LarderSystem
import LarderTransport

/// A file that downloaded bytes go into, written at an offset (so a resumed download continues
/// where the file ends), with a full disk reported as its own error.
final class DownloadFile {
    let path: String
    private let url: URL
    private let file: FileDescriptor

    /// Opens (creating) the file for writing, never through a symlink.
    init(path: String, url: URL) throws(TransportError) {
        self.path = path
        self.url = url
        do { file = try FileDescriptor(opening: path, [.writeOnly, .create, .noFollow]) } catch {
            throw TransportError.write(error, path: path, url: url)
        }
        guard (try? file.status().kind) == .regular else {
            throw TransportError(.cache, "the download \(path) is not a regular file", url: url)
        }
    }

    /// The file's size.
    static func size(_ path: String) -> Int64 {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int64(info.st_size) : 0
    }

    /// Cuts the file to `size` bytes.
    func truncate(to size: Int64) throws(TransportError) {
        guard ftruncate(file.rawValue, off_t(size)) == 0 else { throw TransportError.write(Errno.current, path: path, url: url) }
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(TransportError) {
        do { try file.writeAll(bytes, at: offset) } catch { throw TransportError.write(error, path: path, url: url) }
    }

    /// Replaces the file at `path` with `bytes` (written to a temporary name, then renamed). A
    /// failed write (a full disk) removes the temporary file: what it held of `bytes` would only
    /// take space.
    static func replace(_ path: String, with bytes: [UInt8], url: URL) throws(TransportError) {
        let temporary = path + ".tmp"
        let file = try DownloadFile(path: temporary, url: url)
        let failure = bytes.withUnsafeBytes { raw -> TransportError? in
            do throws(TransportError) {
                try file.truncate(to: 0)
                try file.write(raw, at: 0)
            } catch { return error }
            return nil
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let error = TransportError.write(Errno.current, path: path, url: url)
            unlink(temporary)
            throw error
        }
    }

    /// Bytes free for an unprivileged writer on the file's file system, if it can tell.
    func freeBytes() -> Int64? {
        var info = statvfs()
        guard fstatvfs(file.rawValue, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }
}
