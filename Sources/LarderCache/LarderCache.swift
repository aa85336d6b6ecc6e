import Foundation
import LarderFormat
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

        public init(diskBudget: Int64? = nil, memoryBudget: Int = 32 << 20) {
            self.diskBudget = diskBudget
            self.memoryBudget = memoryBudget
        }
    }

    public let root: String
    let configuration: Configuration
    let layout: CacheLayout
    let index: Locked<CacheIndex>
    let memory: MemoryTier<Digest, [UInt8]>
    let verified = Mutex<Set<Digest>>([])
    /// Font objects, their media types and sizes, loaded from the index on first use.
    let fonts = Mutex<[Digest: FontRecord]?>(nil)
    let installs = Mutex<[Digest: InstallWaiter]>([:])
    let leases = Mutex<[Digest: Int]>([:])
    let nextLeaseToken = Atomic<Int64>(1)
    let diskHits = Atomic<Int>(0)
    let diskMisses = Atomic<Int>(0)

    /// Opens (creating if needed) the cache in `path`, removing leases of processes that are
    /// gone and, when no install is running anywhere, what crashed installs left in staging.
    /// - Throws: ``CacheError`` with code ``CacheError/Code/storage``.
    public init(at path: String, configuration: Configuration = .init()) throws(CacheError) {
        root = path
        self.configuration = configuration
        layout = CacheLayout(root: path)
        try layout.create()
        let index = try CacheIndex(path: layout.index, setupLock: layout.sweepLock)
        self.index = Locked(index)
        memory = MemoryTier(budget: configuration.memoryBudget, entryLimit: configuration.memoryEntryLimit)
        for (_, pid) in try index.leases() where !Self.processIsAlive(pid) {
            try index.removeLeases(ofProcess: pid)
        }
        try recoverIfIdle()
    }

    /// The default cache folder for this user: `$XDG_CACHE_HOME/larder`, or `~/.cache/larder`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/larder" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/larder"
    }

    /// The bundles in the cache, most recently used first.
    public func bundles() throws(CacheError) -> [CachedBundle] {
        try index.with { (index) throws(CacheError) in try index.bundles() }
    }

    /// One bundle's record, or nil.
    public func bundle(_ digest: Digest) throws(CacheError) -> CachedBundle? {
        try index.with { (index) throws(CacheError) in try index.bundle(digest) }
    }

    /// A bundle's manifest.
    /// - Throws: ``CacheError/Code/bundleNotFound``.
    public func manifest(_ digest: Digest) throws(CacheError) -> Manifest {
        guard let manifest = try index.with({ (index) throws(CacheError) in try index.manifest(digest) }) else {
            throw CacheError(.bundleNotFound, "no such bundle in the cache", digest: digest)
        }
        return manifest
    }

    static func processIsAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}

/// Lets concurrent installs of one digest share the work of the first.
final class InstallWaiter: Sendable {
    private let group = DispatchGroup()
    private let result = Mutex<Result<InstallResult, CacheError>?>(nil)

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
