import Foundation
import LarderFormat
import LarderSystem

/// What ``LarderCache/retain(scope:keeping:label:)`` did.
public struct InvalidationResult: Sendable, Equatable {
    /// Bundles no longer in the scope.
    public var dropped: [Digest]
    /// Of those, bundles deleted because nothing else keeps them.
    public var removed: [Digest]
    /// Bundles the scope wants that the cache lacks: fetch these.
    public var missing: [Digest]
    /// Of the dropped bundles, those nothing else keeps that a live process leases (a flow on
    /// screen): kept whole until their last lease ends, then removed.
    public var deferred: [Digest] = []
}

/// What eviction removed.
public struct EvictionReport: Sendable, Equatable {
    public var evicted: [Digest]
    public var bytesFreed: Int64
    public var bytesAfter: Int64
}

/// What a sweep found and removed.
public struct SweepReport: Sendable, Equatable {
    /// Files under objects/ no bundle uses (left by a killed or failed install or eviction),
    /// removed unless it was a dry run, sorted.
    public var strayFiles: [String]
    /// Their total size.
    public var strayBytes: Int64
    /// Bytes of partial downloads removed: those of bundles the cache now holds, and those
    /// nobody touched for a week (claimed downloads stay).
    public var downloadBytes: Int64 = 0
    /// Bundles removed because the removal that waited for their leases could go on: their
    /// holders ended them, or died (the leases of dead processes are deleted first). Sorted.
    public var bundlesRemoved: [Digest] = []
    public var milliseconds: Int64
}

/// What ``LarderCache/purge()`` did.
public struct PurgeReport: Sendable, Equatable {
    /// The bundles deleted, sorted.
    public var removed: [Digest]
    /// Bundles a live process leases (or whose objects a fetch holds): out of every scope,
    /// unpinned, no longer the embedded default, and removed when their last lease ends.
    /// Sorted; empty when the cache is empty now.
    public var waiting: [Digest]
}

/// What ``LarderCache/verify(repair:progress:)`` found.
public struct CacheVerification: Sendable, Equatable {
    public var objectsChecked: Int
    public var bytesChecked: Int64
    /// Objects whose file is missing, is not a regular file of the recorded size, or whose
    /// bytes do not match.
    public var corrupt: [Digest]
    /// Bundles that need refetching: those using a corrupt object, and the incomplete ones.
    public var bundlesToRefetch: [Digest]
    /// Whether the corrupt objects were quarantined.
    public var repaired: Bool
    /// What was wrong with each corrupt object ("it is a FIFO, not a file", …).
    public var damage: [Digest: String] = [:]
    /// Bundles the index marks incomplete once verify ended (they lost an object to corruption,
    /// found now with `repair` or earlier), sorted: the ones `larder cache ls` flags.
    public var incomplete: [Digest] = []
    /// No corrupt object and no incomplete bundle.
    public var isClean: Bool { corrupt.isEmpty && incomplete.isEmpty }
}

extension LarderCache {
    /// Keeps exactly `keeping` for `scope`: bundles the scope held before and no longer wants
    /// are dropped from it, and deleted when no other scope, pin or embedding keeps them; one a
    /// live process leases (a flow on screen, here or in another process) stays whole until
    /// its last lease ends, and goes then (``InvalidationResult/deferred``).
    /// - Parameters:
    ///   - label: names the scope for people (`cache ls` shows it: a journey id, never
    ///     a person's identity); nil keeps the name it has. A scope that keeps nothing loses it.
    ///   - scope: who keeps the bundles: an opaque key, such as a journey of a person.
    ///   - keeping: every bundle the scope wants from now on.
    /// - Returns: what changed, and which wanted bundles must be fetched.
    public func retain(scope: String, keeping: Set<Digest>, label: String? = nil) throws(CacheError) -> InvalidationResult {
        try requireWritable("change a scope")
        let (dropped, missing) = try index.withLock { (index) throws(CacheError) in
            try index.database.transaction { () throws(CacheError) in
                let changes = try index.setScope(scope, bundles: keeping)
                try index.setScopeLabel(scope, label)
                return changes
            }
        }
        let choice = try maintaining { (session) throws(CacheError) in try session.removeBundles(.unscoped(dropped)) }
        return InvalidationResult(
            dropped: dropped, removed: choice.bundles.filter(dropped.contains), missing: missing, deferred: choice.deferred)
    }

    /// Pins or unpins a bundle; pinned bundles are never evicted.
    /// - Throws: ``CacheError/Code/bundleNotFound``.
    public func setPinned(_ digest: Digest, _ pinned: Bool) throws(CacheError) {
        try requireWritable(pinned ? "pin a bundle" : "unpin a bundle")
        let changed = try index.withLock { (index) throws(CacheError) in try index.setPinned(digest, pinned) }
        guard changed else { throw CacheError(.bundleNotFound, "no such bundle in the cache", digest: digest) }
    }

    /// Removes every bundle but the embedded default (on logout) and the partial downloads no
    /// process is working on, and empties the memory tier. A bundle a live process leases
    /// leaves every scope and loses its pin, and goes when its last lease ends.
    public func clearAll() throws(CacheError) {
        try requireWritable("clear it")
        _ = try maintaining { (session) throws(CacheError) in try session.removeBundles(.allButEmbedded) }
        try removeDownloads(everything: true)
        memory.removeAll()
    }

    /// Evicts least recently used bundles until the cache holds at most `bytes`, never touching
    /// pinned, leased or embedded bundles (and first completes the removals that waited for
    /// leases that have ended).
    public func evict(toBytes bytes: Int64) throws(CacheError) -> EvictionReport {
        try requireWritable("evict")
        let choice = try maintaining { (session) throws(CacheError) in try session.removeBundles(.leastRecentlyUsed(downTo: bytes)) }
        return EvictionReport(evicted: choice.bundles, bytesFreed: choice.bytesBefore - choice.bytesAfter, bytesAfter: choice.bytesAfter)
    }

    /// After an install: evicts down to the low water mark when above the budget.
    func evictToBudget() throws(CacheError) -> [Digest] {
        guard let budget = configuration.diskBudget else { return [] }
        let usage = try index.withLock { (index) throws(CacheError) in try index.usage().bytes }
        guard usage > budget else { return [] }
        return try evict(toBytes: Int64(Double(budget) * configuration.lowWaterFraction)).evicted
    }

    /// Forgets the font map; it is read again from the index when next needed.
    func refreshFonts() {
        fonts.withLock { $0 = nil }
    }

    /// Removes files in the object store that no bundle uses, and recounts the stored totals;
    /// first the lease rows of processes that are gone, and the bundles whose removal waited
    /// for leases that have ended (``SweepReport/bundlesRemoved``). A dry run removes nothing.
    /// One process sweeps at a time: when another holds the sweep lock, this returns nil at once.
    public func sweep(dryRun: Bool = false) throws(CacheError) -> SweepReport? {
        try requireWritable("sweep it (the sweep lock is taken for writing)")
        let started = DispatchTime.now().uptimeNanoseconds
        return try maintainingIfFree { (session) throws(CacheError) -> SweepReport in
            var released: [Digest] = []
            if !dryRun {
                try index.withLock { (index) throws(CacheError) in
                    try index.database.hintTransaction { () throws(CacheError) in _ = try index.removeDeadLeases() }
                }
                released = try session.removeBundles(.released).bundles
            }
            let stray = try session.cleanUp(dryRun: dryRun)
            let downloadBytes = dryRun ? 0 : try removeDownloads(everything: false)
            let milliseconds = Int64((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
            if !dryRun {
                try index.withLock { (index) throws(CacheError) in
                    try index.database.transaction { () throws(CacheError) in
                        try index.increment("sweeps")
                        try index.database.prepare("INSERT OR REPLACE INTO counters(name, value) VALUES('last_sweep_ms', ?)").bind(.int(milliseconds)).run()
                    }
                }
            }
            return SweepReport(
                strayFiles: stray.paths.sorted(), strayBytes: stray.bytes, downloadBytes: downloadBytes, bundlesRemoved: released.sorted(),
                milliseconds: milliseconds)
        }
    }

    /// Re-hashes every stored object, each opened as the read path opens it (a symbolic link,
    /// folder, FIFO, device or file of another size than recorded counts as corrupt, and no
    /// file is read past its recorded size), and lists the bundles the index marks incomplete,
    /// as `larder cache ls` does. With `repair`, corrupt or missing objects are quarantined and
    /// their bundles marked incomplete (to refetch).
    /// - Parameters:
    ///   - progress: called with (objects done, objects in all).
    ///   - repair: quarantine what is corrupt and mark its bundles incomplete; false only reports.
    /// - Throws: ``CacheError/Code/readOnly`` for a repair of a read-only cache.
    public func verify(repair: Bool = false, progress: ((Int, Int) -> Void)? = nil) throws(CacheError) -> CacheVerification {
        if repair { try requireWritable("repair it") }
        let objects = try index.withLock { (index) throws(CacheError) in try index.objects() }
        var result = CacheVerification(objectsChecked: 0, bytesChecked: 0, corrupt: [], bundlesToRefetch: [], repaired: repair)
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        for (position, object) in objects.enumerated() {
            progress?(position, objects.count)
            let damage: String?
            do throws(ObjectFileProblem) {
                hasher.reset()
                try ObjectFile(opening: layout.objectPath(object.digest), size: object.size).hash(into: hasher, buffer: buffer)
                result.bytesChecked += object.size
                damage = hasher.finalize() == object.digest ? nil : "its bytes do not match its digest"
            } catch {
                if case .system(let message, let errno) = error {
                    throw CacheError(.storage, "\(message): \(errno)", digest: object.digest, path: layout.objectPath(object.digest))
                }
                damage = error.damage ?? "its file is missing"
            }
            result.objectsChecked += 1
            guard let damage else { continue }
            // An object evicted or quarantined by another process while this ran is not damage.
            guard try index.withLock({ (index) throws(CacheError) in try index.isStored(object.digest) }) else { continue }
            result.corrupt.append(object.digest)
            result.damage[object.digest] = damage
            if repair {
                result.bundlesToRefetch += try quarantine(object.digest, reason: damage + ", found by verify").bundles
            } else {
                result.bundlesToRefetch += try index.withLock { (index) throws(CacheError) in try index.bundles(using: object.digest) }
            }
        }
        progress?(objects.count, objects.count)
        result.incomplete = try index.withLock { (index) throws(CacheError) in try index.incompleteBundles() }
        result.bundlesToRefetch = Array(Set(result.bundlesToRefetch + result.incomplete)).sorted()
        return result
    }

    /// Deletes everything: bundles (the embedded default too), objects, quarantine, staging,
    /// and the partial downloads no process is working on; and the scopes, pins and leases of
    /// processes that are gone.
    ///
    /// Like every other removal (a logout, a scope that drops a bundle, eviction), it never
    /// takes a bundle from under a live process: one that a process leases (a flow on screen,
    /// here or in another process sharing the cache) or whose objects a fetch holds loses its
    /// scopes, its pin and its embedding at once and goes, with its objects, when the last
    /// lease ends (or at the next removal or sweep once its holders are gone). Waiting here
    /// instead could block for as long as a flow stays on screen.
    /// - Returns: what was removed and what waits for its leases.
    @discardableResult
    public func purge() throws(CacheError) -> PurgeReport {
        try requireWritable("purge it")
        return try maintaining { (session) throws(CacheError) in
            try index.withLock { (index) throws(CacheError) in
                try index.database.hintTransaction { () throws(CacheError) in _ = try index.removeDeadLeases() }
            }
            let choice = try session.removeBundles(.everything)
            // Files no remaining bundle uses (all of them, unless a removal waits), the
            // quarantine, and what a dead install left in staging/: garbage now.
            _ = try session.cleanUp(dryRun: false)
            if let quarantine = try layout.open(.quarantine) {
                do throws(Folder.RemovalError) { try quarantine.removeContents() } catch { throw CacheError.removal(error, "cannot empty the quarantine") }
            }
            try removeDownloads(everything: true)
            memory.removeAll()
            verified.withLock { $0.removeAll() }
            refreshFonts()
            return PurgeReport(removed: choice.bundles.sorted(), waiting: choice.deferred.sorted())
        }
    }

    /// Trims the memory tier; resources held by active presentations stay.
    public func handleMemoryPressure(_ pressure: MemoryPressure) {
        memory.handlePressure(pressure)
        manifests.removeAll()
    }

    /// Reads the kernel's pressure-stall information and trims the memory tier if it reports
    /// pressure. Returns the level acted on.
    @discardableResult
    public func checkSystemMemoryPressure(path: String = "/proc/pressure/memory") -> MemoryPressure? {
        guard let level = PressureStall.current(path: path) else { return nil }
        handleMemoryPressure(level)
        return level
    }
}
