/// The USAGE line of help wrapped to the terminal's width (``HelpWrapping/width``), as
/// argument-parser wraps it: broken between options, never inside one (`[-o <out>]` and
/// `--origin <url>` stay whole; a group too long for a line breaks between the options in it),
/// continuation lines indented under the command. A command with several forms starts each
/// on a line of its own, under the first.
enum UsageWrapping {
    /// Where each form starts: after "USAGE: ".
    static let formIndent = 7
    /// Continuation lines start in this column, two past a form's start.
    static let indent = 9

    /// "USAGE: <usage>" (or another label of seven columns: the "Usage: " after a usage error)
    /// in lines of at most `width` columns, with a final newline.
    static func block(_ usage: String, label: String = "USAGE: ", width: Int = HelpWrapping.width) -> String {
        var text = ""
        for (index, form) in usage.split(separator: "\n").enumerated() {
            let words = units(form.split(separator: " ").map(String.init), level: 0, width: width - indent)
            let lines = HelpWrapping.lines(words: words, width: width - indent, firstWidth: width - formIndent)
            for (number, line) in lines.enumerated() {
                let start = number > 0 ? String(repeating: " ", count: indent) : index == 0 ? label : String(repeating: " ", count: formIndent)
                text += start + line + "\n"
            }
        }
        return text
    }

    /// "OVERVIEW: <overview>" in lines of at most `width` columns, continuation lines under the
    /// overview's first word, with a final newline.
    static func overview(_ overview: String, width: Int = HelpWrapping.width) -> String {
        let label = "OVERVIEW: "
        let indent = String(repeating: " ", count: label.count)
        let words = overview.split(separator: " ").map(String.init)
        return HelpWrapping.lines(words: words, width: width - label.count).enumerated().map { ($0 == 0 ? label : indent) + $1 + "\n" }.joined()
    }

    /// The words grouped into what a line may not break: an option with its value, a bracketed
    /// group (`[--level <1-9>]`, `[--sign <key> [--expires-in <duration>]]`) as one, unless it
    /// is longer than `width`, when it is split one bracket deeper.
    static func units(_ words: [String], level: Int, width: Int) -> [String] {
        var units: [[String]] = []
        var depth = 0
        for word in words {
            // A value (`<url>`, `s3://<bucket>`) stays with the option before it.
            let value =
                !word.hasPrefix("-") && !word.hasPrefix("[")
                && units.last?.last.map { $0.drop { $0 == "[" }.hasPrefix("-") && !$0.hasSuffix("]") } == true
            if !units.isEmpty, depth > level || value {
                units[units.count - 1].append(word)
            } else {
                units.append([word])
            }
            for character in word {
                if character == "[" || character == "<" { depth += 1 }
                if character == "]" || character == ">" { depth = max(0, depth - 1) }
            }
        }
        return units.flatMap { unit in
            let text = unit.joined(separator: " ")
            return text.count > width && unit.count > 1 && level < 4 ? Self.units(unit, level: level + 1, width: width) : [text]
        }
    }
}
