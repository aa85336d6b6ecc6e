import Foundation

/// Help text wrapped to the terminal: `COLUMNS` when it is a number of at least 40, else 80
/// columns, the width argument-parser uses when it cannot ask the terminal.
enum HelpWrapping {
    static let width: Int = {
        guard let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns >= 40 else { return 80 }
        return columns
    }()

    /// `text` in lines of at most `width` characters, broken at spaces; a word longer than the
    /// width stays whole on its own line.
    static func lines(_ text: String, width: Int) -> [String] {
        lines(words: text.split(separator: " ", omittingEmptySubsequences: true).map(String.init), width: width)
    }

    /// `words` joined by spaces in lines of at most `width` characters (the first of at most
    /// `firstWidth`, when given); a word longer than the width stays whole on its own line.
    static func lines(words: [String], width: Int, firstWidth: Int? = nil) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in words {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= max(lines.isEmpty ? firstWidth ?? width : width, 20) {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
