import Foundation
import LarderFormat

/// Things that can be planted where a cache's object file belongs. The cache must refuse each
/// before reading a byte of it (none may hang or fill memory) and quarantine it like a digest
/// mismatch.
public enum PlantedFile: String, CaseIterable, Sendable {
    case fifo
    case folder
    /// A symbolic link to a 3 GB sparse file: reading it whole would take 3 GB.
    case symlinkToSparseFile
    /// A symbolic link to a file with exactly the object's bytes: a link all the same.
    case symlinkToIntactCopy
    /// The object's bytes and one more.
    case longer
    /// The first half of the object's bytes.
    case shorter
    case empty
    /// A character device (the null device's numbers); only root can make one.
    case device

    /// Replaces whatever is at `path` with this.
    /// - Parameters:
    ///   - bytes: the object's true bytes.
    ///   - scratch: an existing folder outside the cache, for link targets.
    /// - Returns: false when this process may not make it (a device without root).
    public func plant(at path: String, object bytes: [UInt8], scratch: String) throws -> Bool {
        if unlink(path) != 0 && errno != ENOENT { throw PlantError("cannot remove \(path): \(String(cString: strerror(errno)))") }
        switch self {
        case .fifo:
            try check(mkfifo(path, 0o644), "mkfifo", path)
        case .folder:
            try check(mkdir(path, 0o755), "mkdir", path)
            try Data("inside".utf8).write(to: URL(fileURLWithPath: path + "/inside"))
        case .symlinkToSparseFile:
            let target = scratch + "/sparse-\(UUID().uuidString)"
            let fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            try check(fd < 0 ? -1 : 0, "open", target)
            defer { close(fd) }
            try check(ftruncate(fd, 3 << 30), "ftruncate", target)
            try check(symlink(target, path), "symlink", path)
        case .symlinkToIntactCopy:
            let target = scratch + "/copy-\(UUID().uuidString)"
            try Data(bytes).write(to: URL(fileURLWithPath: target))
            try check(symlink(target, path), "symlink", path)
        case .longer:
            try Data(bytes + [0x0A]).write(to: URL(fileURLWithPath: path))
        case .shorter:
            try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: path))
        case .empty:
            try Data().write(to: URL(fileURLWithPath: path))
        case .device:
            // makedev(1, 3), the numbers of /dev/null.
            guard mknod(path, S_IFCHR | 0o644, 0x103) == 0 else {
                if errno == EPERM { return false }
                throw PlantError("mknod \(path): \(String(cString: strerror(errno)))")
            }
        }
        return true
    }

    /// What the cache reports is wrong with it, for an object of `size` bytes.
    public func damage(size: Int) -> String {
        switch self {
        case .fifo: "it is a FIFO, not a file"
        case .folder: "it is a folder, not a file"
        case .symlinkToSparseFile, .symlinkToIntactCopy: "it is a symbolic link, not a file"
        case .longer: "it has \(size + 1) bytes where \(size) are recorded"
        case .shorter: "it has \(size / 2) bytes where \(size) are recorded"
        case .empty: "it has 0 bytes where \(size) are recorded"
        case .device: "it is a character device, not a file"
        }
    }

    private func check(_ status: Int32, _ call: String, _ path: String) throws {
        guard status == 0 else { throw PlantError("\(call) \(path): \(String(cString: strerror(errno)))") }
    }
}

public struct PlantError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Every entry under `root` (recursively, links not followed) by relative path, with what it
/// is: a regular file's size and SHA-256, a folder, a FIFO, a device, or a link and its
/// target. Two equal snapshots mean the same tree, byte for byte. Paths for which `include`
/// says false are left out.
public func folderSnapshot(_ root: String, include: (String) -> Bool = { _ in true }) -> [String: String] {
    var result: [String: String] = [:]
    func walk(_ folder: String, _ prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }  // a folder that vanished has no entries
        for name in names {
            let path = folder + "/" + name
            let relative = prefix + name
            guard include(relative) else { continue }
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                result[relative] = "folder"
                walk(path, relative + "/")
            case S_IFREG:
                let bytes = FileManager.default.contents(atPath: path).map { Array($0) }
                result[relative] = "file \(info.st_size) " + (bytes.map { SHA256Hasher.hash($0).hex } ?? "unreadable")
            case S_IFLNK:
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"  // unreadable link: "?"
                result[relative] = "link \(target)"
            case S_IFIFO: result[relative] = "fifo"
            case S_IFCHR: result[relative] = "character device \(info.st_rdev)"
            default: result[relative] = "other \(info.st_mode & S_IFMT)"
            }
        }
    }
    walk(root, "")
    return result
}
