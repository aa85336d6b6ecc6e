import LarderFormat
#if canImport(Glibc)
import Glibc
#endif

/// One file of a source folder.
public struct SourceFile: Sendable, Equatable {
    /// The bundle path: relative to the source root, `/`-separated, NFC.
    public var path: String
    /// Where it is on disk.
    public var location: String
    public var size: Int64
}

/// The files of a source folder, in bundle-path order, with junk left out.
public struct SourceTree: Sendable {
    public var root: String
    public var files: [SourceFile]
    /// Junk that was found and left out (`.DS_Store`, `__MACOSX/`, VCS folders, swap files).
    public var skipped: [String]
    /// The bytes of `larder.json`, if the folder has one.
    public var configuration: [UInt8]?

    /// Names that are never packed: OS metadata, VCS folders and editor leftovers.
    public static func isJunk(_ name: String) -> Bool {
        switch name {
        case ".DS_Store", "Thumbs.db", "ehthumbs.db", "desktop.ini", "__MACOSX", ".git", ".svn", ".hg", ".bzr", "CVS",
            ".Spotlight-V100", ".Trashes", ".fseventsd":
            return true
        default:
            return name.hasPrefix("._") || name.hasSuffix(".swp") || name.hasSuffix(".swo") || name.hasSuffix(".swx")
                || name.hasSuffix("~") || name.hasPrefix(".#") || (name.hasPrefix("#") && name.hasSuffix("#"))
        }
    }

    /// Lists a source folder.
    /// - Throws: ``PackFailure`` listing every unsafe name, link, special or unreadable file.
    public static func scan(root: String) throws(PackFailure) -> SourceTree {
        var info = stat()
        guard stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw PackFailure([PackError(.invalidSource, "not a folder: \(Errno.current)", path: root)])
        }
        var tree = SourceTree(root: root, files: [], skipped: [], configuration: nil)
        var errors: [PackError] = []
        tree.walk(folder: root, prefix: "", errors: &errors)
        guard errors.isEmpty else { throw PackFailure(errors) }
        if let index = tree.files.firstIndex(where: { $0.path == BundleConfiguration.fileName }) {
            let file = tree.files.remove(at: index)
            do {
                tree.configuration = try ReadableFile(path: file.location).readAll(limit: 1 << 20)
            } catch {
                throw PackFailure([PackError(.unreadableFile, error.message, path: file.path, cause: error)])
            }
        }
        tree.files.sort { BundlePath.precedes($0.path, $1.path) }
        tree.skipped.sort(by: BundlePath.precedes)
        return tree
    }

    private mutating func walk(folder: String, prefix: String, errors: inout [PackError]) {
        guard let directory = opendir(folder) else {
            errors.append(PackError(.unreadableFile, "cannot open folder: \(Errno.current)", path: prefix.isEmpty ? folder : prefix))
            return
        }
        defer { closedir(directory) }
        var entries: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            entries.append(name)
        }
        entries.sort { $0.lexicographicallyPrecedes($1) }
        for nameBytes in entries {
            let shownName = String(decoding: nameBytes, as: UTF8.self)
            let shownPath = prefix + shownName
            guard let name = String(validating: nameBytes, as: UTF8.self) else {
                let escaped = nameBytes.map { $0 < 0x80 ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
                errors.append(PackError(.invalidName, "file name is not valid UTF-8: '\(prefix)\(escaped)'; rename it", path: prefix + escaped))
                continue
            }
            if Self.isJunk(name) {
                skipped.append(shownPath)
                continue
            }
            let location = folder + "/" + name
            let path = prefix + name
            do { try BundlePath.validate(path) } catch {
                errors.append(PackError(.invalidName, error.message + "; rename it", path: path, cause: error))
                continue
            }
            var info = stat()
            guard lstat(location, &info) == 0 else {
                errors.append(PackError(.unreadableFile, "cannot read file information: \(Errno.current)", path: path))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                walk(folder: location, prefix: path + "/", errors: &errors)
            case S_IFREG:
                guard access(location, R_OK) == 0 else {
                    errors.append(PackError(.unreadableFile, "file is not readable: \(Errno.current)", path: path))
                    continue
                }
                files.append(SourceFile(path: path, location: location, size: Int64(info.st_size)))
            case S_IFLNK:
                errors.append(PackError(.unreadableFile, "symbolic links are not packed; copy the file in instead", path: path))
            default:
                errors.append(PackError(.unreadableFile, "not a regular file (device, FIFO or socket)", path: path))
            }
        }
    }
}
