import LarderFetch
import LarderTransport

/// `--deadline <duration>` and `--timeout <duration>`: a number of seconds, or a number with
/// `ms`, `s` or `min`.
enum DurationOption {
    static let deadline = OptionSpec(
        names: ["--deadline"], value: "duration",
        help: "How long the whole fetch may take, e.g. 5s, 1500ms, 10min (default \(describe(BundleFetcher.Configuration().deadline))).")
    static let timeout = OptionSpec(
        names: ["--timeout"], value: "duration",
        help: "How long one request may take (default \(describe(BundleFetcher.Configuration().requestTimeout))).")

    /// The duration, or nil when the text is not a positive number with an optional unit.
    static func parse(_ text: String) -> Duration? {
        let number = text.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(number), value > 0, value.isFinite else { return nil }
        let scale: Double
        switch text.dropFirst(number.count) {
        case "", "s": scale = 1
        case "ms": scale = 0.001
        case "min", "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86_400
        default: return nil
        }
        let seconds = value * scale
        guard seconds <= 86_400 * 365 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// A duration option, typed (``TypedOption``): nil when absent.
    static func typed(_ option: OptionSpec) -> TypedOption<Duration?> {
        TypedOption(option, default: nil) { text in
            guard let duration = parse(text) else {
                return .failure(OptionRefusal(message: "Invalid '\(option.names[0]) <duration>': '\(text)' (use e.g. 5s, 1500ms, 2min)"))
            }
            return .success(duration)
        }
    }

    /// The value of `option` in `arguments` (its default when absent).
    static func value(_ option: OptionSpec, in arguments: ParsedArguments, default fallback: Duration, command: CommandSpec) throws(UsageError) -> Duration {
        try typed(option).value(in: arguments, command: command) ?? fallback
    }

    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return seconds % 60 == 0 && seconds >= 60 ? "\(seconds / 60)min" : "\(seconds)s" }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
    }
}
