import LarderCache
import LarderSystem

/// The rule every command that reads a cache follows: a cache folder that is not there is an
/// error (``CacheError/Code/cacheNotFound``, exit 66), never an empty cache, and is never
/// created. Only the commands that fill a cache (`cache install`, `cache fetch`, `journey
/// prepare`, `journey present`, and `prefetch` and `trigger`, which prepare and present) make
/// one; a mistyped `--cache` in a script then fails instead of reporting "empty" or "OK" for ever.
enum CacheFolder {
    /// Throws ``CacheError/Code/cacheNotFound`` naming `path` when nothing is there. Anything
    /// else there (a file, a link) is left to ``LarderCache/init(at:configuration:)``, which
    /// says what it is.
    /// - Parameter path: the cache folder.
    static func requireExisting(_ path: String) throws(CacheError) {
        do { _ = try FileStatus.ofLink(path) } catch where error == .notFound || error == .notAFolder {
            throw missing(path)
        } catch {
            return  // not readable: opening the cache says why
        }
    }

    /// The error for a cache folder that does not exist.
    static func missing(_ path: String) -> CacheError {
        CacheError(
            .cacheNotFound,
            "no such cache folder (nothing was created); check the --cache path, or make a cache there with "
                + "'larder cache install <archive>' or 'larder cache fetch'",
            path: path)
    }
}
