import LarderFormat

/// One option a command accepts.
struct OptionSpec {
    var names: [String]
    /// The value's placeholder; nil for a flag.
    var value: String?
    var help: String
}

/// A command's arguments and help text, argument-parser style.
struct CommandSpec {
    var name: String
    var overview: String
    var usage: String
    var arguments: [(name: String, help: String)] = []
    var options: [OptionSpec] = []
    var discussion: String? = nil

    static let helpOption = OptionSpec(names: ["-h", "--help"], value: nil, help: "Show help information.")

    var helpText: String {
        var text = UsageWrapping.overview(overview) + "\n" + UsageWrapping.block(usage)
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments { text += Self.row(argument.name, argument.help) }
        }
        text += "\nOPTIONS:\n"
        for option in options + [Self.helpOption] {
            let label = option.names.joined(separator: ", ") + (option.value.map { " <\($0)>" } ?? "")
            text += Self.row(label, option.help)
        }
        if let discussion { text += "\n\(DiscussionWrapping.text(discussion))\n" }
        if let examples = CommandExamples.all[name], !examples.isEmpty {
            text += "\nEXAMPLES:\n"
            // Command lines stay whole, to copy; what they do is wrapped.
            for example in examples { text += example.hasPrefix("#") ? Self.wrapped(example, indent: 2, hanging: 4) : "  $ \(example)\n" }
        }
        return text
    }

    /// One row of ARGUMENTS or OPTIONS: the label, then its help from column 26, wrapped to
    /// the terminal's width (`COLUMNS`, else 80), as argument-parser lays them out.
    static func row(_ label: String, _ help: String) -> String {
        let lines = HelpWrapping.lines(help, width: HelpWrapping.width - 26)
        var text = label.count < 24 ? "  " + label + String(repeating: " ", count: 24 - label.count) : "  " + label + "\n" + String(repeating: " ", count: 26)
        for (index, line) in lines.enumerated() {
            text += (index == 0 ? "" : String(repeating: " ", count: 26)) + line + "\n"
        }
        return lines.isEmpty ? text + "\n" : text
    }

    /// A paragraph wrapped to the width: its first line at `indent`, the rest at `hanging`.
    static func wrapped(_ text: String, indent: Int, hanging: Int) -> String {
        let lines = HelpWrapping.lines(text, width: HelpWrapping.width - hanging)
        return lines.enumerated().map { String(repeating: " ", count: $0.offset == 0 ? indent : hanging) + $0.element + "\n" }.joined()
    }
}

/// A command line that does not fit the command's spec: exit 64.
struct UsageError: Error {
    var message: String
    var command: CommandSpec
}

/// The arguments of one command, parsed.
struct ParsedArguments {
    /// The command parsed for, whose usage an option's refused value shows (``TypedOption``).
    let command: CommandSpec
    var positionals: [String] = []
    var values: [String: String] = [:]
    /// Every value of each option, in order, for options that may be repeated.
    var allValues: [String: [String]] = [:]
    var flags: Set<String> = []
    var wantsHelp = false

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name] }
    /// Every value given for a repeatable option (the last one wins for ``value(_:)``).
    func values(_ name: String) -> [String] { allValues[name] ?? [] }

    /// Parses `arguments` against `spec`, keyed by each option's last (long) name.
    init(_ arguments: [String], spec: CommandSpec, positionalCount: ClosedRange<Int>) throws(UsageError) {
        command = spec
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            if argument == "-h" || argument == "--help" { wantsHelp = true; continue }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = spec.options.first(where: { $0.names.contains(name) }) else {
                let known = (spec.options + [CommandSpec.helpOption]).flatMap(\.names).filter { $0.hasPrefix("--") }
                throw UsageError(message: "Unknown option '\(name)'" + ClosestName.hint(name, among: known), command: spec)
            }
            let key = option.names.last!
            if option.value != nil {
                if let inlineValue {
                    values[key] = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw UsageError(message: "Missing value for '\(name) <\(option.value!)>'", command: spec)
                    }
                    values[key] = arguments[index]
                    index += 1
                }
                allValues[key, default: []].append(values[key]!)
            } else {
                guard inlineValue == nil else {
                    throw UsageError(message: "Option '\(name)' takes no value", command: spec)
                }
                flags.insert(key)
            }
        }
        if wantsHelp { return }
        if positionals.count < positionalCount.lowerBound {
            let missing = spec.arguments.dropFirst(positionals.count).first?.name ?? "argument"
            throw UsageError(message: "Missing expected argument '\(missing)'", command: spec)
        }
        if positionals.count > positionalCount.upperBound {
            throw UsageError(message: "Unexpected argument '\(positionals[positionalCount.upperBound])'", command: spec)
        }
    }
}
