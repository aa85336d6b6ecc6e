#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Folder operations: listing, creating, flushing and removing.
public enum Folder {
    /// The names in a folder, without `.` and `..`, in the order `readdir(3)` gives them;
    /// empty when it cannot be opened (missing, or not a folder).
    public static func names(_ path: String) -> [String] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The names in a folder as the file system holds them (bytes, which need not be UTF-8),
    /// without `.` and `..`, in the order `readdir(3)` gives them.
    /// - Throws: ``Errno`` when the folder cannot be opened.
    public static func rawNames(_ path: String) throws(Errno) -> [[UInt8]] {
        guard let folder = opendir(path) else { throw Errno.current }
        defer { closedir(folder) }
        var names: [[UInt8]] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
        }
        return names
    }

    /// Creates the folder at `path` (`mkdir(2)`) unless it exists.
    /// - Throws: ``Errno`` other than ``Errno/exists``.
    public static func create(_ path: String, permissions: mode_t = 0o755) throws(Errno) {
        do { try nothingOrErrno { mkdir(path, permissions) } } catch where error == .exists {}
    }

    /// Creates a new private folder `<template without XXXXXX><random>` (`mkdtemp(3)`).
    /// - Parameter template: a path ending in `XXXXXX`.
    /// - Returns: its path.
    public static func createUnique(_ template: String) throws(Errno) -> String {
        var bytes = Array(template.utf8CString)
        guard bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw Errno.current }
        return String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Makes the folder's entries durable (`open(2)` then `fsync(2)`, `F_FULLFSYNC` on Apple
    /// platforms).
    public static func synchronize(_ path: String) throws(Errno) {
        try FileDescriptor.openFolder(path).synchronize()
    }

    /// Removes a folder and everything in it without following symbolic links: `path` itself
    /// when it is a link or any other file (`unlink(2)`), else every entry relative to the
    /// opened folder (``OpenFolder/removeContents(depthLimit:)``), then the folder (`rmdir(2)`).
    /// What vanishes meanwhile is not an error. Nesting deeper than `depthLimit` folders is
    /// refused rather than followed.
    /// - Throws: ``RemovalError`` naming what could not be removed.
    public static func removeTree(_ path: String, depthLimit: Int = 64) throws(RemovalError) {
        let folder: OpenFolder
        do { folder = try OpenFolder(path) } catch where error == .notFound {
            return
        } catch where error == .tooManyLinks || error == .notAFolder {
            do { try File.remove(path) } catch { throw RemovalError(path: path, reason: .file(error)) }
            return
        } catch {
            throw RemovalError(path: path, reason: .folder(error))
        }
        guard depthLimit > 0 else { throw RemovalError(path: path, reason: .tooDeep) }
        try folder.removeContents(depthLimit: depthLimit)
        do { try remove(path) } catch { throw RemovalError(path: path, reason: .folder(error)) }
    }

    /// Why ``Folder/removeTree(_:depthLimit:)`` stopped.
    public struct RemovalError: Error, Sendable {
        public enum Reason: Sendable {
            /// A file could not be unlinked.
            case file(Errno)
            /// A folder could not be removed.
            case folder(Errno)
            /// Folders are nested deeper than the limit.
            case tooDeep
        }
        /// What could not be removed.
        public var path: String
        public var reason: Reason
    }
}

extension Folder {
    /// Removes an empty folder (`rmdir(2)`); nothing there is not an error.
    /// - Throws: ``Errno`` (``Errno/folderNotEmpty`` when something is in it).
    public static func remove(_ path: String) throws(Errno) {
        do { try nothingOrErrno { rmdir(path) } } catch where error == .notFound {}
    }
}

extension Folder {
    /// Creates the folder at `path` and each missing folder above it (`mkdir -p`), one
    /// `mkdir(2)` at a time from the top.
    /// - Throws: ``CreationError`` naming the first folder that could not be made and why:
    ///   ``Errno/notAFolder`` when it, or what it would be made in, is a file.
    public static func createPath(_ path: String, permissions: mode_t = 0o755) throws(CreationError) {
        let absolute = path.hasPrefix("/")
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix = prefix.isEmpty && !absolute ? String(part) : prefix + "/" + part
            if part == "." || part == ".." { continue }
            do { try nothingOrErrno { mkdir(prefix, permissions) } } catch where error == .exists {
                guard (try? FileStatus.of(prefix))?.kind == .folder else { throw CreationError(path: prefix, errno: .notAFolder) }
            } catch {
                throw CreationError(path: prefix, errno: error)
            }
        }
    }

    /// Why ``Folder/createPath(_:permissions:)`` stopped.
    public struct CreationError: Error, Sendable {
        /// The folder that could not be made.
        public var path: String
        public var errno: Errno
    }
}
