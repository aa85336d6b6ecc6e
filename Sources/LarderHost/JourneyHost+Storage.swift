import Dispatch
import Foundation
import LarderCache
import LarderFormat

/// The host's storage, reached without blocking the actor's thread.
///
/// The cache's calls can wait: `retain` and an import take the cache's sweep lock, which
/// another process's install or eviction may hold for seconds; every index and host-store call
/// may wait on SQLite's busy timeout. They run on Dispatch threads, and the host awaits them,
/// so while one waits the actor answers other calls (`status`, `timeline`) and the cooperative
/// pool's few threads keep running everything else. Nothing here holds actor state across the
/// hop: callers re-check the generation after it, as after any other await.
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

    /// The stored record of a scope.
    func storedRecord(_ scope: String) async throws(HostError) -> ScopeRecord {
        let store = store
        return try await Self.offPool { () throws(HostError) in try store.record(scope) }
    }

    /// The stored record of a scope and whether its document's bundle is complete in the
    /// cache (false without a document), in one hop.
    func storedState(_ scope: String) async throws(HostError) -> (record: ScopeRecord, complete: Bool) {
        let store = store
        let cache = cache
        return try await Self.offPool { () throws(HostError) in
            let record = try store.record(scope)
            guard let bundle = record.document?.bundle else { return (record, false) }
            do throws(CacheError) { return (record, try cache.bundle(bundle)?.complete == true) } catch { throw HostError(error) }
        }
    }

    /// Stores a scope's record.
    func saveRecord(_ record: ScopeRecord, for scope: String) async throws(HostError) {
        let store = store
        try await Self.offPool { () throws(HostError) in try store.save(record, for: scope) }
    }

    /// Whether a bundle is complete in the cache.
    func isComplete(_ bundle: Digest) async throws(HostError) -> Bool {
        let cache = cache
        return try await Self.offPool { () throws(HostError) in
            do throws(CacheError) { return try cache.bundle(bundle)?.complete == true } catch { throw HostError(error) }
        }
    }

    /// Keeps exactly `bundles` for a scope in the cache (waits for the sweep lock).
    func retainBundles(_ bundles: Set<Digest>, for scope: String) async throws(HostError) {
        let cache = cache
        _ = try await Self.offPool { () throws(HostError) in
            do throws(CacheError) { return try cache.retain(scope: scope, keeping: bundles) } catch { throw HostError(error) }
        }
    }

    /// A lease on a bundle (an index write).
    func leaseBundle(_ bundle: Digest) async throws(HostError) -> BundleLease {
        let cache = cache
        return try await Self.offPool { () throws(HostError) in
            do throws(CacheError) { return try cache.lease(bundle) } catch { throw HostError(error) }
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
