import Foundation
import LarderFormat
import LarderSystem

/// The lock over an origin's mutable files (journey documents, their histories, the access
/// maps): an exclusive ``FileLock`` on `<origin>/.publish.lock` (never through a symbolic
/// link), held while one of them is read, changed and replaced, so two `larder publish` or
/// `larder keys` processes never lose each other's change (two revisions numbered alike, a
/// grant dropped). Immutable objects, archives and manifests need no lock: they are
/// content-addressed and written whole.
enum OriginLock {
    /// How long to wait for another process's publish before giving up.
    static let patience: Duration = .seconds(60)
    /// Takes the lock, trying every 20 ms for up to ``patience``.
    /// - Throws: ``FormatError/Code/io`` when the lock file cannot be opened or another process
    ///   held the lock all that time.
    static func acquire(origin: String) throws(FormatError) -> FileLock {
        let path = origin + "/.publish.lock"
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while true {
            do {
                let descriptor = try FileDescriptor(opening: path, [.readWrite, .create, .noFollow])
                if let lock = try FileLock.acquire(on: descriptor, .exclusive, wait: false) { return lock }
            } catch {
                throw FormatError(.io, "cannot lock the origin: \(error)", path: path)
            }
            guard clock.now < deadline else {
                throw FormatError(.io, "another publish held the origin's lock for \(DurationText.describe(patience))", path: path)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Runs `body` holding the lock of `origin`.
    static func holding<T>(_ origin: String, _ body: () throws(FormatError) -> T) throws(FormatError) -> T {
        let lock = try acquire(origin: origin)
        return try withExtendedLifetime(lock) { () throws(FormatError) -> T in try body() }
    }
}
