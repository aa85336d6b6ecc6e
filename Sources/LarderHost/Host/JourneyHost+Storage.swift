import Dispatch
import Foundation
import LarderCache
import LarderFormat

/// The host's storage, reached without blocking the actor's thread on anything another process
/// can hold.
///
/// What can wait runs on Dispatch threads, and the host awaits it, so while one call waits the
/// actor answers others (`status`, `timeline`) and the cooperative pool's few threads keep
/// running everything else: `retain` and an import take the cache's sweep lock, which another
/// process's install or eviction may hold for seconds. A write (a scope's record, a lease) is
/// tried on the actor without waiting, and only when another writer holds SQLite's lock does it
/// go off the actor to wait. Reads stay on the actor: in WAL mode a reader never waits for a
/// writer. A hop costs about 0.1 ms on this machine (two thread wake-ups), which the launch path
/// of `larder-bench host` shows, so it is taken only when waiting is possible. Callers re-check
/// the generation after a hop, as after any other await.
extension JourneyHost {
    /// Runs a blocking storage call on a Dispatch thread.
    nonisolated static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws(HostError) -> T) async throws(HostError) -> T {
        let result: Result<T, HostError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(HostError) { continuation.resume(returning: .success(try body())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// The stored record of a scope and whether its document's bundle is complete in the
    /// cache (false without a document).
    func storedState(_ scope: String) throws(HostError) -> (record: ScopeRecord, complete: Bool) {
        let record = try trustedRecord(scope)
        guard let document = record.document else { return (record, false) }
        return (record, try isComplete(try assignedBundle(document)))
    }

    /// Stores a scope's record: at once when no other connection is writing, otherwise off
    /// the actor, trying again.
    func saveRecord(_ record: ScopeRecord, for scope: String) async throws(HostError) {
        let store = store
        _ = try await withoutWaiting { () throws(HostError) -> Bool? in try store.save(record, for: scope, waiting: false) ? true : nil }
    }

    /// Runs `attempt`, which gives nil instead of waiting for a lock another connection holds:
    /// first on the actor, then, while it gives nil, off the actor every few milliseconds for
    /// up to 30 s (SQLite's own busy timeout). Between tries this process's own lock on the
    /// connection is free, so the host's reads (`status`) go on meanwhile; SQLite's busy wait
    /// would hold it.
    /// - Throws: ``HostError/Code/storage`` when the lock stayed held for 30 s.
    func withoutWaiting<T: Sendable>(_ attempt: @escaping @Sendable () throws(HostError) -> T?) async throws(HostError) -> T {
        if let value = try attempt() { return value }
        return try await Self.retryingOffPool(attempt)
    }

    /// Runs `attempt` off the actor every few milliseconds, for up to 30 s, until it gives a
    /// value.
    /// - Throws: ``HostError/Code/storage`` when it gave nil for 30 s.
    nonisolated static func retryingOffPool<T: Sendable>(_ attempt: @escaping @Sendable () throws(HostError) -> T?) async throws(HostError) -> T {
        try await offPool { () throws(HostError) -> T in
            let deadline = DispatchTime.now() + .seconds(30)
            var pause: UInt32 = 2_000
            while DispatchTime.now() < deadline {
                usleep(pause)
                if let value = try attempt() { return value }
                pause = min(pause * 2, 50_000)
            }
            throw HostError(.storage, "the storage stayed locked by another process for 30 s")
        }
    }

    /// Whether a bundle is complete in the cache.
    func isComplete(_ bundle: Digest) throws(HostError) -> Bool {
        do { return try cache.bundle(bundle)?.complete == true } catch { throw HostError(error) }
    }

    /// Keeps exactly `bundles` for a scope in the cache (waits for the sweep lock), naming the
    /// scope by its journey for `cache ls`.
    func retainBundles(_ bundles: Set<Digest>, for scope: String, journey: String? = nil) async throws(HostError) {
        let cache = cache
        _ = try await Self.offPool { () throws(HostError) in
            do throws(CacheError) { return try cache.retain(scope: scope, keeping: bundles, label: journey) } catch { throw HostError(error) }
        }
    }

    /// A lease on a bundle (an index write): at once when no other process is writing the
    /// index, otherwise off the actor, trying again.
    func leaseBundle(_ bundle: Digest) async throws(HostError) -> BundleLease {
        let cache = cache
        return try await withoutWaiting { () throws(HostError) -> BundleLease? in
            do throws(CacheError) { return try cache.leaseWithoutWaiting(bundle) } catch { throw HostError(error) }
        }
    }

    /// Imports the embedded default archive (a whole install, under the sweep lock).
    func importEmbedded(_ path: String) async throws(HostError) -> Digest {
        let cache = cache
        return try await Self.offPool { () throws(HostError) in
            do throws(CacheError) { return try cache.importEmbeddedDefault(archiveAt: path).bundle } catch { throw HostError(error) }
        }
    }
}
