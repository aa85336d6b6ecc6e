import LarderFormat

/// Counters of a cache: per tier for this process, stored totals for the folder.
public struct CacheStatistics: Sendable, Equatable {
    public var memory: MemoryTierStatistics
    /// Reads served from disk in this process.
    public var diskHits: Int
    /// Reads that found no object file.
    public var diskMisses: Int
    public var bytesOnDisk: Int64
    public var objects: Int
    public var bundles: Int
    /// Bundles evicted, in all processes, ever.
    public var evictions: Int64
    /// Objects that failed verification, in all processes, ever.
    public var integrityFailures: Int64
    public var sweeps: Int64
    public var lastSweepMilliseconds: Int64
}

extension LarderCache {
    public func statistics() throws(CacheError) -> CacheStatistics {
        let (usage, evictions, failures, sweeps, lastSweep) = try index.withLock { (index) throws(CacheError) in
            (try index.usage(), try index.counter("evictions"), try index.counter("integrity_failures"),
             try index.counter("sweeps"), try index.counter("last_sweep_ms"))
        }
        return CacheStatistics(
            memory: memory.statistics, diskHits: diskHits.load(ordering: .relaxed), diskMisses: diskMisses.load(ordering: .relaxed),
            bytesOnDisk: usage.bytes, objects: usage.objects, bundles: usage.bundles, evictions: evictions,
            integrityFailures: failures, sweeps: sweeps, lastSweepMilliseconds: lastSweep)
    }
}
