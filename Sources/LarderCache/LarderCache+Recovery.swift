import LarderFormat
import LarderSystem

/// Cleaning up after processes that died (or installs that failed) part way.
///
/// What they leave is always in `staging/`: an install's folder (objects it moved into the
/// store may be there without the commit that accounts for them), or an eviction's marker
/// (objects it forgot may still be on disk). Meanwhile another install may reuse such a file
/// (safe: a file is moved into the store only once durable) without counting it. Whoever next
/// holds the sweep lock exclusively — so no install is between placing objects and
/// committing — recounts the stored totals from the index, removes the files no bundle uses
/// (so none is reused uncounted later), and only then the leftovers that said to.
extension LarderCache {
    /// At open: recovers if no install is running anywhere; otherwise a later open, eviction
    /// or sweep does.
    func recoverIfIdle() throws(CacheError) {
        _ = try layout.sweep.withExclusiveIfFree { () throws(CacheError) in try recoverLeftovers() }
    }

    /// Recounts, removes stray files and then what is in `staging/`, if anything is. Call
    /// holding the sweep lock exclusively.
    func recoverLeftovers() throws(CacheError) {
        guard StagingArea.hasLeftovers(layout: layout) else { return }
        _ = try cleanUp(dryRun: false)
    }

    /// In the order the recovery needs: recounts the stored totals, removes the files no bundle
    /// uses, then everything in `staging/`. A dry run only lists the files. Call holding the
    /// sweep lock exclusively.
    /// - Returns: the files no bundle uses and their total size.
    func cleanUp(dryRun: Bool) throws(CacheError) -> (paths: [String], bytes: Int64) {
        if !dryRun { try recount() }
        let stray = try removeStrayFiles(dryRun: dryRun)
        if !dryRun { StagingArea.removeAll(layout: layout) }
        return stray
    }

    /// Sets the stored totals from the index. Call holding the sweep lock exclusively.
    func recount() throws(CacheError) {
        try index.with { (index) throws(CacheError) in
            try index.database.transaction { () throws(CacheError) in try index.recount() }
        }
    }

    /// Removes (unless `dryRun`) every file under `objects/` that no bundle uses. Call holding
    /// the sweep lock exclusively.
    /// - Returns: their paths and their total size in bytes.
    func removeStrayFiles(dryRun: Bool) throws(CacheError) -> (paths: [String], bytes: Int64) {
        let used = try index.with { (index) throws(CacheError) in try index.usedObjectNames() }
        var stray: [String] = []
        var bytes: Int64 = 0
        for (name, path) in Self.listObjectFiles(layout.objects) where !used.contains(name) {
            guard let status = try? FileStatus.ofLink(path) else { continue }  // gone meanwhile
            stray.append(path)
            bytes += status.size
            guard !dryRun else { continue }
            do { try File.remove(path) } catch {
                // A folder planted in the store goes with everything in it.
                guard error == .isFolder else { throw CacheError(.storage, "cannot remove a stray file: \(error)", path: path) }
                try Self.removeTree(path)
            }
        }
        return (stray, bytes)
    }
}
