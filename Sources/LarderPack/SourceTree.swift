import LarderFormat
import LarderSystem

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
    /// Junk that was found and left out (`.DS_Store`, `__MACOSX/`, VCS folders, swap files),
    /// and the output folder when it is inside the source.
    public var skipped: [String]
    /// The bytes of `larder.json`, if the folder has one.
    public var configuration: [UInt8]?
    /// Files and folders left out by `exclude` patterns (a folder stands for its content).
    public var excluded: [String] = []

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
    /// - Parameters:
    ///   - exclude: what these match is left out unseen: not listed, not checked.
    ///   - output: the bundle path of the output folder when it is inside the source
    ///     (``bundlePath(of:inside:)``): left out, with everything in it (archives written
    ///     before), and listed in ``skipped``.
    ///   - root: the source folder.
    /// - Throws: ``PackFailure`` listing every unsafe name, link, special or unreadable file.
    public static func scan(root: String, excluding exclude: [GlobPattern] = [], output: String? = nil) throws(PackFailure) -> SourceTree {
        try requireFolder(root)
        var tree = SourceTree(root: root, files: [], skipped: [], configuration: try configurationBytes(root: root))
        var errors: [PackError] = []
        tree.walk(folder: root, prefix: "", exclude: exclude, output: output, errors: &errors)
        guard errors.isEmpty else { throw PackFailure(errors) }
        tree.files.sort { BundlePath.precedes($0.path, $1.path) }
        tree.skipped.sort(by: BundlePath.precedes)
        tree.excluded.sort(by: BundlePath.precedes)
        return tree
    }

    /// The bytes of the folder's `larder.json`, nil when it has none (read before the folder
    /// is listed: its `exclude` patterns decide what is listed).
    /// - Throws: ``PackFailure``: the folder is missing, or `larder.json` is not a readable
    ///   regular file of at most 1 MiB.
    public static func configurationBytes(root: String) throws(PackFailure) -> [UInt8]? {
        try requireFolder(root)
        let location = root + "/" + BundleConfiguration.fileName
        let status: FileStatus
        do { status = try FileStatus.ofLink(location) } catch {
            if error == .notFound { return nil }
            throw PackFailure([PackError(.unreadableFile, "cannot read file information: \(error)", path: BundleConfiguration.fileName)])
        }
        guard status.kind == .regular else {
            throw PackFailure([PackError(.unreadableFile, "not a regular file (a link, folder or device)", path: BundleConfiguration.fileName)])
        }
        do {
            return try ReadableFile(path: location).readAll(limit: 1 << 20)
        } catch {
            throw PackFailure([PackError(.unreadableFile, error.message, path: BundleConfiguration.fileName, cause: error)])
        }
    }

    /// Throws ``PackError/Code/invalidSource`` naming `root` unless it is a folder, saying what
    /// is there instead (nothing, a file, an archive already packed).
    private static func requireFolder(_ root: String) throws(PackFailure) {
        let status: FileStatus
        do { status = try FileStatus.of(root) } catch {
            let message =
                error == .notFound || error == .notAFolder
                ? "no such source folder; give the folder that holds the bundle's files"
                : "cannot open the source folder: \(error)"
            throw PackFailure([PackError(.invalidSource, message, path: root)])
        }
        guard status.kind == .folder else {
            let packed = root.hasSuffix(".tar.gz") ? " (an archive is packed already: 'larder inspect' shows it)" : ""
            throw PackFailure([
                PackError(
                    .invalidSource, "this is \(status.kind.description), not a source folder; give the folder that holds "
                        + "the bundle's files\(packed)", path: root)
            ])
        }
    }

    private mutating func walk(folder: String, prefix: String, exclude: [GlobPattern], output: String?, errors: inout [PackError]) {
        var entries: [[UInt8]]
        do { entries = try Folder.rawNames(folder) } catch {
            errors.append(PackError(.unreadableFile, "cannot open folder: \(error)", path: prefix.isEmpty ? folder : prefix))
            return
        }
        entries.sort { $0.lexicographicallyPrecedes($1) }
        for nameBytes in entries {
            let shownName = String(decoding: nameBytes, as: UTF8.self)
            let shownPath = prefix + shownName
            guard let name = String(validating: nameBytes, as: UTF8.self) else {
                let escaped = DisplayText.escaping(bytes: nameBytes)
                errors.append(PackError(.invalidName, "file name is not valid UTF-8: '\(prefix)\(escaped)'; rename it", path: prefix + escaped))
                continue
            }
            if Self.isJunk(name) {
                skipped.append(shownPath)
                continue
            }
            let location = folder + "/" + name
            let path = prefix + name
            if path == BundleConfiguration.fileName { continue }  // read by configurationBytes, never packed
            if path == output {
                skipped.append(shownPath)
                continue
            }
            let looked = Result { () throws(Errno) in try FileStatus.ofLink(location) }
            let isFolder = if case .success(let found) = looked { found.kind == .folder } else { false }
            if exclude.contains(where: { $0.matches(path, isFolder: isFolder) }) {
                excluded.append(path)
                continue
            }
            do { try BundlePath.validate(path) } catch {
                errors.append(PackError(.invalidName, error.message + "; rename it", path: path, cause: error))
                continue
            }
            let info: FileStatus
            switch looked {
            case .success(let found): info = found
            case .failure(let error):
                errors.append(PackError(.unreadableFile, "cannot read file information: \(error)", path: path))
                continue
            }
            switch info.kind {
            case .folder:
                walk(folder: location, prefix: path + "/", exclude: exclude, output: output, errors: &errors)
            case .regular:
                do { try File.checkReadable(location) } catch {
                    errors.append(PackError(.unreadableFile, "file is not readable: \(error)", path: path))
                    continue
                }
                files.append(SourceFile(path: path, location: location, size: info.size))
            case .symbolicLink:
                errors.append(PackError(.unreadableFile, "symbolic links are not packed; copy the file in instead", path: path))
            default:
                errors.append(PackError(.unreadableFile, "not a regular file (device, FIFO or socket)", path: path))
            }
        }
    }
}
