import Foundation
import LarderFormat
import LarderSystem
import Synchronization

/// A verified, content-addressed store of bundles on the device.
///
/// Objects are stored once per digest and are immutable; a bundle becomes visible only when
/// its index row commits, after all its objects are durable. No byte reaches a caller before
/// its object was verified in this process; corrupt objects are quarantined and the caller is
/// told which digest to refetch. Several processes may share one folder.
///
/// All methods are synchronous and thread-safe; call them off the main thread when they touch
/// the disk.
public final class LarderCache: Sendable {
    /// Whether a cache may change its folder.
    public enum Mode: Sendable, Equatable {
        /// Creates the folder when needed, recovers after crashed processes, installs, leases,
        /// evicts, sweeps, and quarantines corrupt objects.
        case readWrite
        /// Looks inside an existing cache without changing anything, so it works on a
        /// read-only file system and in another user's cache: the index is opened read-only,
        /// no folder or file is created (but SQLite's `-wal` and `-shm` files, which a reader
        /// makes where it may and a cache Larder made always has), a folder with no cache reads
        /// as an empty cache, nothing is recovered or swept, and every method that
        /// would change the folder or the index (installing, leasing, pinning, evicting,
        /// sweeping, repairing, purging, claiming a download) throws
        /// ``CacheError/Code/readOnly``. A corrupt object is still reported as
        /// ``CacheError/Code/corruptObject`` (with the bundles to refetch), but left in place.
        case readOnly
    }

    /// How a cache behaves.
    public struct Configuration: Sendable {
        /// Bytes on disk above which installs evict least recently used bundles (high water
        /// mark); nil for no limit.
        public var diskBudget: Int64?
        /// Eviction stops at this fraction of ``diskBudget`` (low water mark).
        public var lowWaterFraction: Double = 0.8
        /// Bytes the memory tier may hold.
        public var memoryBudget: Int = 32 << 20
        /// The largest single resource the memory tier keeps.
        public var memoryEntryLimit: Int = 2 << 20
        /// What archives may contain.
        public var limits: ArchiveReader.Limits = .default
        /// The current time in milliseconds since 1970; injected by tests.
        public var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
        /// Read-write (the default), or read-only to look inside a cache without changing it.
        public var mode: Mode

        /// - Parameters:
        ///   - diskBudget: bytes on disk above which installs evict; nil for no limit.
        ///   - memoryBudget: bytes the memory tier may hold.
        ///   - mode: ``Mode/readOnly`` to look inside a cache without changing it.
        public init(diskBudget: Int64? = nil, memoryBudget: Int = 32 << 20, mode: Mode = .readWrite) {
            self.diskBudget = diskBudget
            self.memoryBudget = memoryBudget
            self.mode = mode
        }
    }

    public let root: String
    let configuration: Configuration
    let layout: CacheLayout
    let index: Locked<CacheIndex>
    let memory: MemoryTier<Digest, [UInt8]>
    let verified = Locked<Set<Digest>>([])
    let manifests = ManifestMemo()
    /// Font objects, their media types and sizes, loaded from the index on first use.
    let fonts = Locked<[Digest: FontRecord]?>(nil)
    let installs = Locked<[Digest: InstallWaiter]>([:])
    let leases = Locked<[Digest: Int]>([:])
    /// Completes, once the sweep lock is free, removals that waited for a lease that ended while
    /// an install or maintenance held it (``endLease(_:token:)``).
    let deferredRemovals = DispatchQueue(label: "larder.cache.deferred-removals")
    let nextLeaseToken = Atomic<Int64>(1)
    let diskHits = Atomic<Int>(0)
    let diskMisses = Atomic<Int>(0)
    /// How many installs made their objects' moves durable before committing (a test hook:
    /// every install that commits does, whoever moved the objects).
    package let moveSynchronizations = Atomic<Int>(0)

    /// Opens the cache in `path`.
    ///
    /// Read-write (the default), it creates the folder when needed, removes leases of
    /// processes that are gone and, when no install is running anywhere, what crashed installs
    /// left in staging. Read-only (``Mode/readOnly``), it only opens the index for reading; a
    /// folder with no cache in it (yet) reads as an empty cache, and nothing is created.
    /// - Throws: ``CacheError`` with code ``CacheError/Code/storage``,
    ///   ``CacheError/Code/readOnly`` when a read-write open finds the cache not writable, or
    ///   ``CacheError/Code/cacheNotFound`` when the path is not a folder.
    public init(at path: String, configuration: Configuration = .init()) throws(CacheError) {
        root = path
        self.configuration = configuration
        layout = CacheLayout(root: path)
        memory = MemoryTier(budget: configuration.memoryBudget, entryLimit: configuration.memoryEntryLimit)
        guard configuration.mode == .readWrite else {
            index = Locked(try CacheIndex(readingOnly: try layout.existingIndex()))
            return
        }
        try layout.checkWritable()
        try layout.create()
        let index: CacheIndex
        do { index = try CacheIndex(path: layout.index, setupLock: layout.sweepLock) } catch where error.code == .readOnly {
            throw CacheError(.readOnly, CacheLayout.notWritable + " (\(error.message))", path: layout.index)
        }
        try index.removeDeadLeases()
        self.index = Locked(index)
        try recoverIfIdle()
    }

    /// Whether this cache may change its folder.
    public var mode: Mode { configuration.mode }

    /// Throws ``CacheError/Code/readOnly`` unless the cache was opened read-write.
    /// - Parameter action: what was refused, as "cannot <action>".
    func requireWritable(_ action: String) throws(CacheError) {
        guard configuration.mode == .readWrite else {
            throw CacheError(.readOnly, "the cache was opened read-only: cannot \(action); open it read-write to change it", path: root)
        }
    }

    /// The default cache folder for this user: `$XDG_CACHE_HOME/larder`, or `~/.cache/larder`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/larder" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/larder"
    }

    /// The bundles in the cache, most recently used first.
    public func bundles() throws(CacheError) -> [CachedBundle] {
        try index.withLock { (index) throws(CacheError) in try index.bundles() }
    }

    /// One bundle's record, or nil.
    public func bundle(_ digest: Digest) throws(CacheError) -> CachedBundle? {
        try index.withLock { (index) throws(CacheError) in try index.bundle(digest) }
    }

    /// A bundle's manifest.
    /// - Throws: ``CacheError/Code/bundleNotFound``.
    public func manifest(_ digest: Digest) throws(CacheError) -> Manifest {
        let manifest = try index.withLock { (index) throws(CacheError) -> Manifest? in
            if let kept = manifests.kept(digest) { return try index.bundle(digest) == nil ? nil : kept }
            return manifests.keep(try index.manifest(digest), for: digest)
        }
        guard let manifest else {
            throw CacheError(.bundleNotFound, "no such bundle in the cache", digest: digest)
        }
        return manifest
    }
}

/// Lets concurrent installs of one digest share the work of the first.
final class InstallWaiter: Sendable {
    private let group = DispatchGroup()
    private let result = Locked<Result<InstallResult, CacheError>?>(nil)

    init() { group.enter() }

    func finish(_ outcome: Result<InstallResult, CacheError>) {
        result.withLock { $0 = outcome }
        group.leave()
    }

    func wait() throws(CacheError) -> InstallResult {
        group.wait()
        var outcome = result.withLock { $0 }!
        if case .success(var shared) = outcome {
            shared.alreadyPresent = true
            shared.objectsWritten = 0
            shared.bytesWritten = 0
            outcome = .success(shared)
        }
        return try outcome.get()
    }
}
