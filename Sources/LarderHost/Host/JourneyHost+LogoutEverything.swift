import Foundation
import LarderCache

/// What a logout discards.
public enum LogoutExtent: Sendable, Equatable {
    /// The current scope (``JourneyHost/logout()``).
    case journey
    /// Every journey's: every scope's stored record and every bundle in the cache but the
    /// embedded default.
    case everything
}

extension JourneyHost {
    /// Signs out of the current scope (``logout()``) or of everything [seed 001]: then every
    /// scope's stored record (document, validator, backoff) this host's state folder holds goes
    /// too, and every bundle in the cache but the embedded default (a bundle another host or
    /// process is showing goes when its lease ends). Queued captures and each scope's rollback
    /// floor stay. Other hosts on the same storage find nothing authorised and ask the origin
    /// again.
    /// - Throws: what ``logout()`` throws; what was cleared before a failure stays cleared.
    public func logout(_ extent: LogoutExtent) async throws(HostError) {
        try await logout()
        guard extent == .everything else { return }
        let store = store
        try await Self.offPool { () throws(HostError) in try store.deleteAllScopes() }
        let cache = cache
        try await Self.offPool { () throws(HostError) in
            do throws(CacheError) { try cache.clearAll() } catch { throw HostError(error) }
        }
        note(.logout, "every journey: stored state and every bundle but the embedded default discarded; queued captures kept")
    }
}
