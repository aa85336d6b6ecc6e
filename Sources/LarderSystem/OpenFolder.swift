import CLarderSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder opened once and then worked in by name, relative to its descriptor (`openat(2)`,
/// `fstatat(2)`, `mkdirat(2)`, `unlinkat(2)`, `fdopendir(3)`): whatever its path leads to later
/// (the folder swapped for a symbolic link), every call reaches this folder, and no symbolic
/// link inside it is followed. Closed when dropped.
///
/// Each method names the system call it makes, retries `EINTR`, and throws ``Errno``.
public struct OpenFolder: ~Copyable, Sendable {
    /// The path it was opened at, for messages.
    public let path: String
    /// The folder's descriptor (`O_RDONLY | O_DIRECTORY`).
    public let descriptor: FileDescriptor

    /// Opens the folder at `path` (`open(2)` with `O_RDONLY | O_DIRECTORY`, and `O_NOFOLLOW`
    /// unless `followingLink`).
    /// - Parameter followingLink: whether `path` itself may be a symbolic link to a folder (a
    ///   folder a user chose: `~/.cache` may be one). Links above it are always followed.
    /// - Throws: ``Errno``: ``Errno/notAFolder`` for anything that is not a folder, a symbolic
    ///   link not followed included (Linux; ``Errno/tooManyLinks`` elsewhere).
    public init(_ path: String, followingLink: Bool = false) throws(Errno) {
        self.path = path
        descriptor = try FileDescriptor(opening: path, followingLink ? .folder : [.folder, .noFollow])
    }

    private init(path: String, descriptor: consuming FileDescriptor) {
        self.path = path
        self.descriptor = descriptor
    }

    private var fd: Int32 { descriptor.rawValue }

    /// The path of an entry, for messages.
    public func path(of name: String) -> String { path + "/" + name }

    /// Opens the folder `name` in this one, never following a symbolic link (`openat(2)` with
    /// `O_RDONLY | O_DIRECTORY | O_NOFOLLOW`).
    /// - Throws: ``Errno``: ``Errno/notAFolder`` for anything that is not a folder, a symbolic
    ///   link included (Linux; ``Errno/tooManyLinks`` elsewhere), ``Errno/notFound``.
    public func folder(_ name: String) throws(Errno) -> OpenFolder {
        let opened = try valueOrErrno { openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        return OpenFolder(path: path(of: name), descriptor: FileDescriptor(unsafeAdopting: opened))
    }

    /// Opens the file `name` in this one (`openat(2)`; `O_CLOEXEC` is always added). Add
    /// ``OpenOptions/noFollow`` to refuse a symbolic link (``OpenOptions/exclusive`` with
    /// ``OpenOptions/create`` never follows one).
    public func openFile(_ name: String, _ options: OpenOptions, permissions: mode_t = 0o644) throws(Errno) -> FileDescriptor {
        FileDescriptor(unsafeAdopting: try valueOrErrno { openat(fd, name, options.rawValue | O_CLOEXEC, permissions) })
    }

    /// Creates the folder `name` in this one (`mkdirat(2)`).
    /// - Returns: false when something was there already (which is not checked: open it with
    ///   ``folder(_:)`` to know it is a folder).
    @discardableResult
    public func createFolder(_ name: String, permissions: mode_t = 0o755) throws(Errno) -> Bool {
        do { try nothingOrErrno { mkdirat(fd, name, permissions) } } catch where error == .exists { return false }
        return true
    }

    /// Creates a new private folder (0700) named `prefix` and six random letters and digits, as
    /// `mkdtemp(3)` does, but in this folder (`mkdirat(2)`, another name on `EEXIST`).
    /// - Returns: its name.
    public func createUniqueFolder(prefix: String) throws(Errno) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let name = prefix + String((0..<6).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
            if try createFolder(name, permissions: 0o700) { return name }
        }
        throw Errno.exists
    }

    /// What `name` is, a symbolic link not followed (`fstatat(2)` with `AT_SYMLINK_NOFOLLOW`).
    /// - Returns: nil when nothing is there.
    public func status(of name: String) throws(Errno) -> FileStatus? {
        try status(of: Array(name.utf8CString))
    }

    private func status(of name: [CChar]) throws(Errno) -> FileStatus? {
        var info = stat()
        do { try nothingOrErrno { fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) } } catch where error == .notFound { return nil }
        return FileStatus(info)
    }

    /// The entries of this folder, without `.` and `..`, in the order `readdir(3)` gives them,
    /// each with its kind (`d_type`, or `fstatat(2)` where the file system does not say).
    /// Lists through a descriptor of its own (`openat(".")`, `fdopendir(3)`), so two listings
    /// of one folder never share a position.
    public func entries() throws(Errno) -> [Folder.Entry] {
        let own = try valueOrErrno { openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard let stream = fdopendir(own) else {
            let error = Errno.current
            _ = close(own)
            throw error
        }
        defer { closedir(stream) }
        var entries: [Folder.Entry] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw Errno.current }
                return entries
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                bytes.prefix { $0 != 0 }.map { CChar(bitPattern: $0) } + [0]
            }
            if name == [0x2E, 0] || name == [0x2E, 0x2E, 0] { continue }
            var kind = Self.kind(of: entry.pointee.d_type)
            if kind == .unknown {
                guard let status = try status(of: name) else { continue }  // gone meanwhile
                kind = status.kind
            }
            entries.append(Folder.Entry(cName: name, kind: kind))
        }
    }

    /// Removes the file, symbolic link, FIFO, device or socket `name` (`unlinkat(2)`); nothing
    /// there is not an error.
    /// - Throws: ``Errno`` (``Errno/isFolder`` for a folder).
    public func removeFile(_ name: String) throws(Errno) {
        try removeFile(Array(name.utf8CString))
    }

    private func removeFile(_ name: [CChar]) throws(Errno) {
        do { try nothingOrErrno { unlinkat(fd, name, 0) } } catch where error == .notFound {}
    }

    /// Removes the empty folder `name` (`unlinkat(2)` with `AT_REMOVEDIR`); nothing there is
    /// not an error.
    /// - Throws: ``Errno`` (``Errno/folderNotEmpty`` when something is in it).
    public func removeFolder(_ name: String) throws(Errno) {
        try removeFolder(Array(name.utf8CString))
    }

    private func removeFolder(_ name: [CChar]) throws(Errno) {
        do { try nothingOrErrno { unlinkat(fd, name, AT_REMOVEDIR) } } catch where error == .notFound {}
    }

    /// Removes the entry `name` whatever it is: a folder with everything in it, anything else
    /// by `unlinkat(2)` (a symbolic link goes, not what it points at). What vanishes meanwhile
    /// is not an error; nesting deeper than `depthLimit` folders is refused rather than followed.
    /// - Throws: ``Folder/RemovalError`` naming what could not be removed.
    public func removeEntry(_ name: String, depthLimit: Int = 64) throws(Folder.RemovalError) {
        try removeEntry(Array(name.utf8CString), depth: 0, limit: depthLimit)
    }

    /// ``removeEntry(_:depthLimit:)`` for an entry ``entries()`` listed, by its exact bytes
    /// (a name that is not UTF-8 too).
    public func removeEntry(_ entry: Folder.Entry, depthLimit: Int = 64) throws(Folder.RemovalError) {
        try removeEntry(entry.cName, depth: 0, limit: depthLimit)
    }

    /// Removes everything in this folder, which stays (see ``removeEntry(_:depthLimit:)``);
    /// its entries are one folder deep.
    public func removeContents(depthLimit: Int = 64) throws(Folder.RemovalError) {
        try removeContents(depth: 1, limit: depthLimit)
    }

    private func removeContents(depth: Int, limit: Int) throws(Folder.RemovalError) {
        let listed: [Folder.Entry]
        do { listed = try entries() } catch { throw Folder.RemovalError(path: path, reason: .folder(error)) }
        for entry in listed { try removeEntry(entry.cName, depth: depth, limit: limit) }
    }

    private func removeEntry(_ name: [CChar], depth: Int, limit: Int) throws(Folder.RemovalError) {
        let child = path(of: Folder.Entry.text(of: name))
        let status: FileStatus?
        do { status = try self.status(of: name) } catch { throw Folder.RemovalError(path: child, reason: .file(error)) }
        guard let status else { return }  // gone meanwhile
        guard status.kind == .folder else {
            do { try removeFile(name) } catch { throw Folder.RemovalError(path: child, reason: .file(error)) }
            return
        }
        guard depth < limit else { throw Folder.RemovalError(path: child, reason: .tooDeep) }
        let opened: OpenFolder
        do {
            opened = OpenFolder(
                path: child,
                descriptor: FileDescriptor(unsafeAdopting: try valueOrErrno { openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }))
        } catch where error == .notFound {
            return  // gone meanwhile
        } catch where error == .tooManyLinks || error == .notAFolder {
            // Swapped for something else since fstatat: unlinked like any file, never followed.
            do { try removeFile(name) } catch { throw Folder.RemovalError(path: child, reason: .file(error)) }
            return
        } catch {
            throw Folder.RemovalError(path: child, reason: .folder(error))
        }
        try opened.removeContents(depth: depth + 1, limit: limit)
        do { try removeFolder(name) } catch { throw Folder.RemovalError(path: child, reason: .folder(error)) }
    }

    /// Moves the entry `name` to `newName` in `target` (`renameat(2)`), replacing a file there;
    /// a symbolic link moves as itself.
    /// - Throws: ``Errno`` (``Errno/notFound`` when nothing is at `name`).
    public func move(_ name: String, to target: borrowing OpenFolder, as newName: String) throws(Errno) {
        try nothingOrErrno { renameat(fd, name, target.fd, newName) }
    }

    /// ``move(_:to:as:)`` only if nothing is at `newName` (`renameat2(RENAME_NOREPLACE)`,
    /// `renameatx_np(RENAME_EXCL)` on Apple platforms: `larder_renameat_noreplace`).
    /// - Throws: ``Errno/exists`` when something is there.
    public func moveWithoutReplacing(_ name: String, to target: borrowing OpenFolder, as newName: String) throws(Errno) {
        try nothingOrErrno { larder_renameat_noreplace(fd, name, target.fd, newName) }
    }

    /// Makes the folder's entries durable (`fsync(2)`, `F_FULLFSYNC` on Apple platforms).
    public func synchronize() throws(Errno) {
        try descriptor.synchronize()
    }

    private static func kind(of type: UInt8) -> FileKind {
        switch Int32(type) {
        case Int32(DT_REG): .regular
        case Int32(DT_DIR): .folder
        case Int32(DT_LNK): .symbolicLink
        case Int32(DT_FIFO): .fifo
        case Int32(DT_CHR): .characterDevice
        case Int32(DT_BLK): .blockDevice
        case Int32(DT_SOCK): .socket
        default: .unknown
        }
    }
}

extension Folder {
    /// One entry of a folder (``OpenFolder/entries()``).
    public struct Entry: Sendable, Equatable {
        /// The name as `readdir(3)` gave it, NUL-terminated: exactly the bytes to reach it by.
        let cName: [CChar]
        /// What it is (a symbolic link is not followed).
        public let kind: FileKind

        init(cName: [CChar], kind: FileKind) {
            self.cName = cName
            self.kind = kind
        }

        /// The name (bytes that are not UTF-8 shown as U+FFFD: remove such an entry by the
        /// entry itself, ``OpenFolder/removeEntry(_:depthLimit:)``, not by this name).
        public var name: String { Self.text(of: cName) }

        static func text(of name: [CChar]) -> String {
            String(decoding: name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
