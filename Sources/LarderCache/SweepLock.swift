import LarderSystem

/// The cache's sweep lock, `flock(2)` on `sweep.lock`: installs hold it shared from creating
/// their staging folder until their commit, so whoever holds it exclusively (eviction,
/// sweeping, purging, recovery) knows no install is between placing objects and committing,
/// and that every staging folder it finds was left by one that died or failed.
struct SweepLock: Sendable {
    let path: String

    /// Runs `body` holding the lock exclusively, waiting for every other holder to finish
    /// (``MaintenanceSession``).
    /// - Throws: ``CacheError/Code/storage`` when the lock cannot be taken, or what `body` throws.
    func withExclusive<Result>(_ body: () throws(CacheError) -> Result) throws(CacheError) -> Result {
        try FileLock.holding(path, .exclusive, failure: failure, body)!  // waiting: never nil
    }

    /// Runs `body` holding the lock exclusively if nobody else holds it now.
    /// - Returns: nil, without running `body`, when another holder has it.
    func withExclusiveIfFree<Result>(_ body: () throws(CacheError) -> Result) throws(CacheError) -> Result? {
        try FileLock.holding(path, .exclusive, wait: false, failure: failure, body)
    }

    /// Takes the lock shared, waiting for an exclusive holder to finish, for a holder that
    /// outlives one call (``InstallSession``).
    func acquireShared() throws(CacheError) -> FileLock {
        do { return try FileLock.acquire(path, .shared)! } catch { throw failure(error) }  // waiting: never nil
    }

    private func failure(_ error: Errno) -> CacheError {
        CacheError(.storage, "cannot take the sweep lock: \(error)", path: path)
    }
}
