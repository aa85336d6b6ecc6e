import LarderHost

/// Options of `journey prepare|present` that choose host rules: what a removed journey does,
/// an explicit refresh that ignores the backoff, a preparation that skips the fresh cache, and
/// the startup policy.
enum HostRuleOptions {
    static let onRemoved = TypedOption<RemovedJourneyPolicy>(
        OptionSpec(
            names: ["--on-removed"], value: "policy",
            help: "When the origin confirms the journey is gone (a second 404): discard (default: drop the content) or keep (serve the cached revision, flagged removed)."),
        default: .discard
    ) { text in
        guard let policy = RemovedJourneyPolicy(rawValue: text) else {
            return .failure(OptionRefusal(message: "Invalid '--on-removed <policy>': '\(text)' (use discard or keep)"))
        }
        return .success(policy)
    }
    static let force = OptionSpec(
        names: ["--force"], value: nil,
        help: "Ask the origin first even during a backoff, as a user's explicit refresh does (still with If-None-Match).")
    static let forceRefresh = OptionSpec(
        names: ["--force-refresh"], value: nil,
        help: "Skip the fresh cache and ask the origin (without an answer the fallback chain serves it, saying why); a backoff still holds.")
    static let startup = TypedOption<StartupPolicy>(
        OptionSpec(
            names: ["--startup"], value: "policy",
            help: "Before the origin answered in this run: ask-origin-first (default: ask, then serve the cache stale), cache-first (show the cache at once, revalidate behind it) or require-authorisation (show nothing downloaded without an answer)."),
        default: .askOriginFirst
    ) { text in
        guard let policy = StartupPolicy(rawValue: text) else {
            return .failure(OptionRefusal(message: "Invalid '--startup <policy>': '\(text)' (use ask-origin-first, cache-first or require-authorisation)"))
        }
        return .success(policy)
    }
    static let all = [onRemoved.spec, force, forceRefresh, startup.spec]
    static let identity = TypedOption<JourneyIdentity?>(
        OptionSpec(
            names: ["--identity"], value: "id",
            help: "The signed-in person's id (attribution, and part of the scope: 'logout' clears one identity's scope)."),
        default: nil
    ) { .success(JourneyIdentity(externalID: $0)) }
}
