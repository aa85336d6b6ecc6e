import CLarderSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file descriptor, owned: closed exactly once, by ``close()`` or when the value is
/// dropped. It cannot be copied, so no two owners can close it (or use it after the close).
///
/// Each method names the system call it makes, retries `EINTR` (never for `close`), and throws
/// ``Errno``.
public struct FileDescriptor: ~Copyable, Sendable {
    /// The descriptor number, for calls this type does not wrap. Do not close it.
    public let rawValue: Int32

    /// Takes ownership of an open descriptor.
    public init(unsafeAdopting rawValue: Int32) { self.rawValue = rawValue }

    /// Opens `path` (`open(2)`); `O_CLOEXEC` is always added.
    /// - Parameters:
    ///   - options: `[]` to read, `[.writeOnly, .create, .exclusive]`, ….
    ///   - permissions: for a file ``OpenOptions/create`` creates.
    /// - Throws: ``Errno``.
    public init(opening path: String, _ options: OpenOptions, permissions: mode_t = 0o644) throws(Errno) {
        rawValue = try valueOrErrno { open(path, options.rawValue | O_CLOEXEC, permissions) }
    }

    /// Opens a folder to flush it or as an anchor (`open(2)` with `O_RDONLY | O_DIRECTORY`).
    public static func openFolder(_ path: String) throws(Errno) -> FileDescriptor {
        try FileDescriptor(opening: path, .folder)
    }

    deinit { _ = systemClose(rawValue) }

    /// Closes the descriptor (`close(2)`, not retried: on Linux it is gone even after `EINTR`).
    /// - Throws: ``Errno`` (the descriptor is closed all the same).
    public consuming func close() throws(Errno) {
        let descriptor = rawValue
        discard self
        guard systemClose(descriptor) == 0 else { throw Errno.current }
    }

    /// What the descriptor refers to (`fstat(2)`).
    public func status() throws(Errno) -> FileStatus {
        var info = stat()
        try nothingOrErrno { fstat(rawValue, &info) }
        return FileStatus(info)
    }

    /// Reads up to `buffer.count` bytes (`read(2)`); 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        guard buffer.count > 0 else { return 0 }
        return try valueOrErrno { systemRead(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Reads up to `buffer.count` bytes from `offset` (`pread(2)`); 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
        guard buffer.count > 0 else { return 0 }
        return try valueOrErrno { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Writes every byte (`write(2)`, repeated after short writes).
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            offset += try valueOrErrno { systemWrite(rawValue, bytes.baseAddress! + offset, bytes.count - offset) }
        }
    }

    /// Writes every byte at `offset` (`pwrite(2)`, repeated after short writes).
    public func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(Errno) {
        var done = 0
        while done < bytes.count {
            done += try valueOrErrno {
                pwrite(rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
        }
    }

    /// Makes the file's (or folder's) data durable: `fsync(2)`, or `fcntl(F_FULLFSYNC)` on
    /// Apple platforms, where fsync leaves data in the drive's cache (`larder_full_fsync`).
    public func synchronize() throws(Errno) {
        try nothingOrErrno { larder_full_fsync(rawValue) }
    }

    /// Flushes every dirty page and inode of the file system holding the descriptor
    /// (`syncfs(2)`; ``Errno`` `ENOTSUP` on Apple platforms).
    public func synchronizeFileSystem() throws(Errno) {
        try nothingOrErrno { larder_syncfs(rawValue) }
    }

    /// Starts writing the file's dirty pages without waiting
    /// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`; nothing on Apple platforms). A failure only
    /// leaves the later flush more to do, so it is not reported.
    public func startWriteback() {
        _ = larder_start_writeback(rawValue)
    }

    /// Sets the file's permissions (`fchmod(2)`).
    public func setPermissions(_ mode: mode_t) throws(Errno) {
        try nothingOrErrno { fchmod(rawValue, mode) }
    }

    /// Turns `O_NONBLOCK` off (`fcntl(F_SETFL)`), after an open that used it so a FIFO could
    /// not block the open.
    public func clearNonBlocking() {
        _ = fcntl(rawValue, F_SETFL, fcntl(rawValue, F_GETFL) & ~O_NONBLOCK)
    }
}

// The C calls under the names the methods above shadow.
@inline(__always) private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
@inline(__always) private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
@inline(__always) private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
