/// What a new configuration invalidates: one pure decision over the old and the new value,
/// which ``JourneyHost/updateConfiguration(_:)`` performs.
///
/// Every field of ``JourneyConfiguration`` has its entry here but the deadlines
/// (``JourneyConfiguration/fetchDeadline``, ``JourneyConfiguration/presentationDeadline``) and
/// the capture settings, the startup and stale-content policies, the host-wide context and the
/// preload switch: those are read each time they are used (the next fetch, presentation,
/// preparation, event or delivery; the preload switch at the next preparation), so storing the
/// new configuration applies them, and they invalidate nothing.
struct ConfigurationChange: OptionSet, Sendable, Hashable, CustomStringConvertible {
    let rawValue: Int

    /// Key, journey, identity or origin: another scope. Prepared, staged and shown content is
    /// discarded (an open presentation ends), answers on their way for the old scope are
    /// dropped, and the new scope is prepared.
    static let scope = ConfigurationChange(rawValue: 1 << 0)
    /// Another embedded default, or none: the one imported is forgotten, and content prepared
    /// from it is prepared again, at once while hidden, after its dismissal while shown.
    static let embeddedDefault = ConfigurationChange(rawValue: 1 << 1)
    /// Download limits (or the origin): the next bundle fetch uses a new fetcher with them;
    /// downloads under way finish under the limits they started with.
    static let downloads = ConfigurationChange(rawValue: 1 << 2)
    /// Trusted keys: the stored document is verified again against the new keys; when none
    /// of them signed it, content is discarded (an open presentation ends) and the scope is
    /// prepared afresh.
    static let trust = ConfigurationChange(rawValue: 1 << 3)
    /// The removed-journey policy went from keep to discard: content kept in service after a
    /// confirmed 404 is discarded, as a confirmed 404 under discard does.
    static let keptRemoval = ConfigurationChange(rawValue: 1 << 4)

    /// What changing `old` into `new` invalidates; empty when nothing does.
    static func between(_ old: JourneyConfiguration, _ new: JourneyConfiguration) -> ConfigurationChange {
        var change: ConfigurationChange = []
        if old.scope != new.scope { change.insert(.scope) }
        if old.embeddedDefault != new.embeddedDefault { change.insert(.embeddedDefault) }
        if old.download != new.download || old.requestOrigin != new.requestOrigin { change.insert(.downloads) }
        if old.trustedKeys != new.trustedKeys { change.insert(.trust) }
        if old.removedJourney == .keepServing, new.removedJourney == .discard { change.insert(.keptRemoval) }
        return change
    }

    var description: String {
        let names: [(ConfigurationChange, String)] = [
            (.scope, "scope"), (.embeddedDefault, "embedded default"), (.downloads, "downloads"), (.trust, "trust"),
            (.keptRemoval, "kept removal"),
        ]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "nothing" : present.joined(separator: ", ")
    }
}
