/// `key=value`, the value of `--context` and `--property`: a text with `=` after a key that is
/// not empty; the value may be empty and may hold `=`.
struct KeyValue: Sendable, Equatable {
    var key: String
    var value: String

    /// A repeatable `key=value` option; a text without `=` or with an empty key is refused:
    /// "Invalid '--context <key=value>': 'x' is not key=value".
    static func option(_ spec: OptionSpec) -> RepeatedOption<KeyValue> {
        let name = "'\(spec.names.last!) <\(spec.value ?? "key=value")>'"
        return RepeatedOption(spec) { pair in
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                return .failure(OptionRefusal(message: "Invalid \(name): '\(pair)' is not key=value"))
            }
            return .success(KeyValue(key: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...])))
        }
    }
}

extension RepeatedOption where Element == KeyValue {
    /// The pairs given by key; the first pair refused, or the first key given twice
    /// ("Invalid '--context <key=value>': 'k' is given twice"), in the order given, is the
    /// usage error, with `command`'s usage.
    func dictionary(in parsed: ParsedArguments, command: CommandSpec) throws(UsageError) -> [String: String] {
        var dictionary: [String: String] = [:]
        for text in parsed.values(spec.names.last!) {
            let pair: KeyValue
            switch convert(text) {
            case .success(let value): pair = value
            case .failure(let refusal): throw UsageError(message: refusal.message, command: command)
            }
            guard dictionary.updateValue(pair.value, forKey: pair.key) == nil else {
                throw UsageError(message: "Invalid '\(spec.names.last!) <\(spec.value ?? "key=value")>': '\(pair.key)' is given twice", command: command)
            }
        }
        return dictionary
    }
}
