/// A repeatable option declared once: its names, placeholder and help (``OptionSpec``) and how
/// each text given becomes a value of its type, or the message of the usage error (64) it is.
/// A command lists `spec` among its options and reads every value, in order, with
/// `try parsed[all: option]`.
struct RepeatedOption<Element: Sendable>: Sendable {
    let spec: OptionSpec
    let convert: @Sendable (String) -> Result<Element, OptionRefusal>

    init(_ spec: OptionSpec, convert: @escaping @Sendable (String) -> Result<Element, OptionRefusal>) {
        self.spec = spec
        self.convert = convert
    }

    /// A repeatable text option: every text is a value.
    init(_ spec: OptionSpec) where Element == String {
        self.init(spec) { .success($0) }
    }

    /// Every value given, in order; none when the option is absent.
    /// - Throws: the usage error for the first text the option refuses, with its message and
    ///   `command`'s usage.
    func values(in parsed: ParsedArguments, command: CommandSpec) throws(UsageError) -> [Element] {
        var values: [Element] = []
        for text in parsed.values(spec.names.last!) {
            switch convert(text) {
            case .success(let value): values.append(value)
            case .failure(let refusal): throw UsageError(message: refusal.message, command: command)
            }
        }
        return values
    }
}

extension ParsedArguments {
    /// Every value of a repeatable option (``RepeatedOption/values(in:command:)``).
    subscript<Element>(all option: RepeatedOption<Element>) -> [Element] {
        get throws(UsageError) { try option.values(in: self, command: command) }
    }
}
