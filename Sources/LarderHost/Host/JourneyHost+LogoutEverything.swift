import Foundation
import LarderCache

/// What a logout discards.
public enum LogoutExtent: Sendable, Equatable {
    /// The current scope (``JourneyHost/logout()``).
    case journey
    /// Every journey's, for every host of the ``PresentationCoordinator``: every scope's stored
    /// record and every bundle in the cache but the embedded default.
    case everything
}

extension JourneyHost {
    /// Signs out of the current scope (``logout()``) or of everything: then every
    /// host of this host's ``PresentationCoordinator`` (by default, every host of the process)
    /// signs out too (``PresentationCoordinator/logout(_:)``): each ends its presentation,
    /// releases what it prepared and staged, forgets the documents it verified and the
    /// authorisation it got in this launch, and every scope's stored record (document,
    /// validator, backoff) its state folder holds goes, and every bundle in its cache but the
    /// embedded default (a bundle another process is showing goes when its lease ends);
    /// trigger routers forget which journeys they showed. Queued captures and each scope's
    /// rollback floor stay. A host that then presents offline shows its embedded default or
    /// throws; online, it asks the origin afresh.
    /// - Throws: what ``logout()`` throws, the first host's failure; what was cleared before a
    ///   failure stays cleared.
    public func logout(_ extent: LogoutExtent) async throws(HostError) {
        guard extent == .everything else { return try await logout() }
        try checkUsable()
        try await seat.coordinator.logout(.everything)
    }

    /// What a logout asks of this host as one member of its coordinator's group: its own scope
    /// (``logout()``), and with ``LogoutExtent/everything`` every scope of its state folder and
    /// every bundle of its cache, and what it remembers of authorisation and trust. Nothing
    /// after disposal.
    func signOut(_ extent: LogoutExtent) async throws(HostError) {
        guard !lifecycle.isDisposed else { return }
        try await logout()
        guard extent == .everything else { return }
        lifecycle.deauthorisedAll()
        origin.cancelLiveFetches()
        origin.forgetTrust()
        let store = store
        try await Self.offPool { () throws(HostError) in try store.deleteAllScopes() }
        let cache = cache
        try await Self.offPool { () throws(HostError) in
            do throws(CacheError) { try cache.clearAll() } catch { throw HostError(error) }
        }
        note(.logout, "every journey: stored state and every bundle but the embedded default discarded; queued captures kept")
    }
}
