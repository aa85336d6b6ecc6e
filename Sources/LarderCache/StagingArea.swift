import CLarderSystem
import LarderFormat
#if canImport(Glibc)
import Glibc
#endif

/// A private folder under `staging/` where one install writes its new objects before they are
/// moved into place. Installs hold the sweep lock shared for as long as their staging folder
/// exists, so whoever holds it exclusively knows every staging folder belongs to a process
/// that died, and may remove them all.
final class StagingArea {
    let path: String
    private let descriptor: Int32
    private var count = 0
    private var removed = false

    init(layout: CacheLayout) throws(CacheError) {
        var template = Array("\(layout.staging)/install-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CacheError(.storage, "cannot create a staging folder: \(Errno.current)", path: layout.staging)
        }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = Errno.current
            rmdir(path)
            throw CacheError(.storage, "cannot open the staging folder: \(error)", path: path)
        }
    }

    deinit {
        remove()
        close(descriptor)
    }

    /// A new file for one object, open for writing.
    func createFile() throws(CacheError) -> (descriptor: Int32, path: String) {
        count += 1
        let file = "\(path)/\(count)"
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
        guard fd >= 0 else { throw CacheError(.storage, "cannot create a staged object: \(Errno.current)", path: file) }
        return (fd, file)
    }

    /// Makes everything written so far durable (`syncfs(2)`: one flush for the whole batch
    /// instead of one `fsync` per object).
    func synchronize() throws(CacheError) {
        guard larder_syncfs(descriptor) == 0 else {
            throw CacheError(.storage, "syncfs failed: \(Errno.current)", path: path)
        }
    }

    /// Deletes the folder and what is left in it.
    func remove() {
        guard !removed else { return }
        removed = true
        Self.removeTree(path)
    }

    /// Removes what crashed installs left, when no install is running in any process (the
    /// sweep lock can be taken exclusively at once); otherwise leaves it for a later open or
    /// sweep.
    static func recover(layout: CacheLayout) throws(CacheError) {
        guard let lock = try FileLock.acquire(layout.sweepLock, .exclusive, wait: false) else { return }
        withExtendedLifetime(lock) { removeAll(layout: layout) }
    }

    /// Removes every staging folder. Call only while holding the sweep lock exclusively.
    static func removeAll(layout: CacheLayout) {
        guard let folder = opendir(layout.staging) else { return }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(folder)
        for name in names {
            let path = layout.staging + "/" + name
            if unlink(path) != 0 { removeTree(path) }  // a stray file, or a staging folder
        }
    }

    private static func removeTree(_ path: String) {
        if let folder = opendir(path) {
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(folder)
        }
        rmdir(path)
    }
}
