/// An option declared once: its names, placeholder and help (``OptionSpec``), its default, and
/// how its text becomes a value of its type, or the message of the usage error (64) it is.
/// A command lists `spec` among its options and reads the value with
/// `try parsed[option]`, which makes that usage error in one place.
struct TypedOption<Value: Sendable>: Sendable {
    let spec: OptionSpec
    let defaultValue: Value
    let convert: @Sendable (String) -> Result<Value, OptionRefusal>

    init(_ spec: OptionSpec, default defaultValue: Value, convert: @escaping @Sendable (String) -> Result<Value, OptionRefusal>) {
        self.spec = spec
        self.defaultValue = defaultValue
        self.convert = convert
    }
}

/// Why an option's text is not a value of its type: the usage error's message.
struct OptionRefusal: Error {
    var message: String
}

extension TypedOption where Value == String? {
    /// A text option without a default.
    init(_ spec: OptionSpec) {
        self.init(spec, default: nil) { .success($0) }
    }
}

extension TypedOption where Value == String {
    /// A text option with a default.
    init(_ spec: OptionSpec, default defaultValue: String) {
        self.init(spec, default: defaultValue) { .success($0) }
    }
}

extension TypedOption {
    /// The value in `parsed` (the last given when the option is repeated), the default when
    /// absent.
    /// - Throws: the usage error for a text the option refuses, with its message and
    ///   `command`'s usage.
    func value(in parsed: ParsedArguments, command: CommandSpec) throws(UsageError) -> Value {
        guard let text = parsed.value(spec.names.last!) else { return defaultValue }
        switch convert(text) {
        case .success(let value): return value
        case .failure(let refusal): throw UsageError(message: refusal.message, command: command)
        }
    }
}

extension ParsedArguments {
    /// The option's value, its default when absent (``TypedOption/value(in:command:)``).
    subscript<Value>(option: TypedOption<Value>) -> Value {
        get throws(UsageError) { try option.value(in: self, command: command) }
    }
}

extension ParsedArguments {
    /// Whether the option was given, whatever its text (its conversion is not run).
    func isGiven(_ option: OptionSpec) -> Bool { value(option.names.last!) != nil }

    /// Whether the option was given, whatever its text (its conversion is not run).
    func isGiven<Value>(_ option: TypedOption<Value>) -> Bool { isGiven(option.spec) }
}
