import Foundation
import LarderCache

extension JourneyHost {
    /// Signs the current scope out (what an app calls when its user logs out).
    ///
    /// Ends an open presentation, discards prepared and staged content, forgets the scope's
    /// stored record (document, validator, backoff), and lets the cache drop the scope's
    /// bundles that no other scope, pin or embedding keeps. The embedded default stays, and so
    /// do captured events already queued: their attribution was fixed when they were created,
    /// and they are delivered later as usual. Answers still on their way for the scope are
    /// dropped. The host stays usable: switch identity with ``updateConfiguration(_:)`` or
    /// prepare again, which authorises afresh.
    /// - Throws: ``HostError/Code/storage`` or ``HostError/Code/cache`` when the state could
    ///   not be cleared (what was cleared before stays cleared; calling again finishes it);
    ///   ``HostError/Code/disposed`` after ``dispose()``.
    public func logout() async throws(HostError) {
        try checkUsable()
        let scope = configuration.scope
        perform(lifecycle.invalidated())
        await schedule { $0.cancelled() }
        origin.cancelLiveFetch(for: scope)
        await endSession(.stopped(.app))
        await perform(stage.discarded())
        lifecycle.deauthorised(scope)
        origin.forgetTrust()
        setReadiness(.idle)
        let store = store
        try await Self.offPool { () throws(HostError) in try store.delete(scope) }
        try await retainBundles([], for: scope)
        note(.logout, "journey '\(configuration.journeyID)': prepared content, stored state and bundles of the scope discarded; queued captures kept")
    }
}
