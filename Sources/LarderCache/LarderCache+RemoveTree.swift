import LarderSystem

extension LarderCache {
    /// Removes a folder and everything in it without following symbolic links
    /// (`Folder.removeTree`): staging folders, and folders planted where an object belongs.
    /// Nesting deeper than 64 folders is refused rather than followed.
    /// - Throws: ``CacheError`` naming what could not be removed.
    static func removeTree(_ path: String) throws(CacheError) {
        do { try Folder.removeTree(path) } catch {
            switch error.reason {
            case .tooDeep: throw CacheError(.storage, "a folder is nested too deep to remove; remove it by hand", path: error.path)
            case .file(let errno): throw CacheError.fileSystem("cannot remove a file", errno, path: error.path)
            case .folder(let errno): throw CacheError.fileSystem("cannot remove a folder", errno, path: error.path)
            }
        }
    }
}
