import Foundation
import LarderFormat
import LarderSystem

/// The lock over an origin's mutable files (journey documents, their histories, the access
/// maps): an exclusive `flock(2)` of `<origin>/.publish.lock`, held while one of them is read,
/// changed and replaced, so two `larder publish` or `larder keys` processes never lose each
/// other's change (two revisions numbered alike, a grant dropped). Immutable objects, archives
/// and manifests need no lock: they are content-addressed and written whole.
final class OriginLock {
    private let descriptor: Int32

    /// How long to wait for another process's publish before giving up.
    static let patience: Duration = .seconds(60)

    /// Takes the lock, trying every 20 ms for up to ``patience``.
    /// - Throws: ``FormatError/Code/io`` when the lock file cannot be opened or another process
    ///   held the lock all that time.
    init(origin: String) throws(FormatError) {
        let path = origin + "/.publish.lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw FormatError(.io, "cannot open the origin's lock: \(Errno.current)", path: path) }
        let clock = ContinuousClock()
        let deadline = clock.now + Self.patience
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let error = Errno.current
            guard error.rawValue == EWOULDBLOCK || error.rawValue == EINTR, clock.now < deadline else {
                close(descriptor)
                throw FormatError(
                    .io, error.rawValue == EWOULDBLOCK ? "another publish held the origin's lock for \(DurationText.describe(Self.patience))" : "cannot lock the origin: \(error)",
                    path: path)
            }
            usleep(20_000)
        }
    }

    deinit { close(descriptor) }  // releases the lock

    /// Runs `body` holding the lock of `origin`.
    static func holding<T>(_ origin: String, _ body: () throws(FormatError) -> T) throws(FormatError) -> T {
        let lock = try OriginLock(origin: origin)
        return try withExtendedLifetime(lock) { () throws(FormatError) -> T in try body() }
    }
}
