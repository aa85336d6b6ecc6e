import LarderHost

/// Options of `journey prepare|present` that choose host rules: what a removed journey does,
/// and an explicit refresh that ignores the backoff.
enum HostRuleOptions {
    static let onRemoved = OptionSpec(
        names: ["--on-removed"], value: "policy",
        help: "When the origin confirms the journey is gone (a second 404): discard (default: drop the content) or keep (serve the cached revision, flagged removed).")
    static let force = OptionSpec(
        names: ["--force"], value: nil,
        help: "Ask the origin first even during a backoff, as a user's explicit refresh does (still with If-None-Match).")
    static let all = [onRemoved, force]
    static let identity = OptionSpec(
        names: ["--identity"], value: "id",
        help: "The signed-in person's id (attribution, and part of the scope: 'logout' clears one identity's scope).")

    /// The `--on-removed` policy; discard when not given.
    static func removedJourney(_ parsed: ParsedArguments, command: CommandSpec) throws(UsageError) -> RemovedJourneyPolicy {
        guard let text = parsed.value(onRemoved.names[0]) else { return .discard }
        guard let policy = RemovedJourneyPolicy(rawValue: text) else {
            throw UsageError(message: "Invalid '--on-removed <policy>': '\(text)' (use discard or keep)", command: command)
        }
        return policy
    }
}
