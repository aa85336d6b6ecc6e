import LarderFormat
#if canImport(Glibc)
import Glibc
#endif

/// The names in a folder, without `.` and `..`; empty when it cannot be opened (missing, or
/// not a folder).
func folderNames(_ path: String) -> [String] {
    guard let folder = opendir(path) else { return [] }
    defer { closedir(folder) }
    var names: [String] = []
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

extension LarderCache {
    /// Removes a folder and everything in it without following symbolic links (`lstat(2)`,
    /// `unlink(2)`, `rmdir(2)`): staging folders, and folders planted where an object belongs.
    /// Nesting deeper than 64 folders is refused rather than followed.
    /// - Throws: ``CacheError`` naming what could not be removed.
    static func removeTree(_ path: String) throws(CacheError) {
        try removeFolder(path, depth: 0)
    }
}

private func removeFolder(_ path: String, depth: Int) throws(CacheError) {
    guard depth < 64 else { throw CacheError(.storage, "a folder is nested too deep to remove; remove it by hand", path: path) }
    for name in folderNames(path) {
        let child = path + "/" + name
        var info = stat()
        guard lstat(child, &info) == 0 else { continue }  // gone meanwhile
        if info.st_mode & S_IFMT == S_IFDIR {
            try removeFolder(child, depth: depth + 1)
        } else if unlink(child) != 0 && errno != ENOENT {
            throw CacheError.fileSystem("cannot remove a file", Errno.current, path: child)
        }
    }
    if rmdir(path) != 0 && errno != ENOENT { throw CacheError.fileSystem("cannot remove a folder", Errno.current, path: path) }
}
