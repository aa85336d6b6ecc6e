#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a file (`flock(2)`), held until this is released from memory (and by
/// the kernel until the process dies, whichever comes first). Several processes may hold it
/// ``Kind/shared`` at once, one alone ``Kind/exclusive``.
public final class FileLock: Sendable {
    /// Who else may hold the lock meanwhile.
    public enum Kind: Sendable {
        /// Other shared holders, no exclusive one (`LOCK_SH`).
        case shared
        /// Nobody else (`LOCK_EX`).
        case exclusive
    }

    private let descriptor: FileDescriptor

    private init(holding descriptor: consuming FileDescriptor) { self.descriptor = descriptor }

    /// Opens (creating, 0644) the lock file at `path` and takes the lock (`open(2)`,
    /// `flock(2)`).
    /// - Parameter wait: false to return nil at once when another holder's lock conflicts.
    /// - Returns: the held lock, or nil (only when not waiting).
    /// - Throws: ``Errno`` when the file cannot be opened or locked.
    public static func acquire(_ path: String, _ kind: Kind, wait: Bool = true) throws(Errno) -> FileLock? {
        try acquire(on: FileDescriptor(opening: path, [.readWrite, .create]), kind, wait: wait)
    }

    /// Takes the lock on an open descriptor, which the lock then owns (`flock(2)`); nil, the
    /// descriptor closed, when not waiting and the lock is taken.
    public static func acquire(on descriptor: consuming FileDescriptor, _ kind: Kind, wait: Bool) throws(Errno) -> FileLock? {
        let operation = (kind == .shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
        do {
            let raw = descriptor.rawValue
            try nothingOrErrno { flock(raw, operation) }
        } catch where error == .wouldBlock {
            return nil
        }
        return FileLock(holding: descriptor)
    }

    /// Runs `body` holding the lock on `path`, released when it returns or throws.
    /// - Parameter failure: the caller's error for a lock that cannot be taken.
    /// - Returns: what `body` returned, or nil when not waiting and the lock was taken.
    public static func holding<Result, Failure: Error>(
        _ path: String, _ kind: Kind, wait: Bool = true, failure: (Errno) -> Failure, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        let lock: FileLock?
        do { lock = try acquire(path, kind, wait: wait) } catch { throw failure(error) }
        guard let lock else { return nil }
        return try withExtendedLifetime(lock) { () throws(Failure) in try body() }
    }
}
