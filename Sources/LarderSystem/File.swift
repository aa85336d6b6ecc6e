import CLarderSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Operations on a file by its path. Each names the system call it makes and throws ``Errno``.
public enum File {
    /// Removes the file at `path` (`unlink(2)`); nothing there is not an error.
    /// - Throws: ``Errno`` (``Errno/isFolder`` for a folder).
    public static func remove(_ path: String) throws(Errno) {
        do { try nothingOrErrno { unlink(path) } } catch where error == .notFound {}
    }

    /// Whether anything is at `path`, following a symbolic link (`stat(2)`).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Moves `from` to `to`, replacing a file there (`rename(2)`).
    public static func rename(_ from: String, to: String) throws(Errno) {
        try nothingOrErrno { systemRename(from, to) }
    }

    /// Moves `from` to `to` only if nothing is at `to`: `renameat2(RENAME_NOREPLACE)`, or
    /// `renamex_np(RENAME_EXCL)` on Apple platforms (`larder_rename_noreplace`).
    /// - Throws: ``Errno/exists`` when something is there.
    public static func renameNoReplace(_ from: String, to: String) throws(Errno) {
        try nothingOrErrno { larder_rename_noreplace(from, to) }
    }

    /// Gives the file at `from` a second name `to` (`link(2)`); ``Errno/exists`` when
    /// something is there.
    public static func link(_ from: String, to: String) throws(Errno) {
        try nothingOrErrno { systemLink(from, to) }
    }

    /// Sets the permissions of what `path` names, following a symbolic link (`chmod(2)`).
    public static func setPermissions(_ path: String, _ mode: mode_t) throws(Errno) {
        try nothingOrErrno { chmod(path, mode) }
    }

    /// Throws unless this process may read `path` (`access(2)` with `R_OK`).
    public static func checkReadable(_ path: String) throws(Errno) {
        try nothingOrErrno { access(path, R_OK) }
    }

    /// Throws unless this process may write `path` (`access(2)` with `W_OK`).
    public static func checkWritable(_ path: String) throws(Errno) {
        try nothingOrErrno { access(path, W_OK) }
    }
}

// The C calls under the names File's methods shadow.
@inline(__always) private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
@inline(__always) private func systemLink(_ from: String, _ to: String) -> Int32 { link(from, to) }
