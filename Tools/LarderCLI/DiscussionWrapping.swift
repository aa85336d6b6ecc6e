/// A command's discussion wrapped to the terminal's width (``HelpWrapping/width``): a paragraph
/// with a line past the width is filled again at its indent, and a row of a table (a name, two
/// spaces or more, its text, and the lines that continue it under its text) past the width is
/// filled again under its text. What fits is left as
/// written, and a command line to copy (`$ …`) stays whole.
enum DiscussionWrapping {
    static func text(_ discussion: String, width: Int = HelpWrapping.width) -> String {
        var wrapped: [String] = []
        var paragraph: [String] = []
        var row: (column: Int, lines: [String])?
        func endRow() {
            defer { row = nil }
            guard let (column, lines) = row else { return }
            wrapped.append(contentsOf: Self.row(lines, column: column, width: width))
        }
        func endParagraph() {
            defer { paragraph = [] }
            guard let first = paragraph.first else { return }
            guard paragraph.contains(where: { $0.count > width }) else { return wrapped.append(contentsOf: paragraph) }
            let indent = String(repeating: " ", count: indentation(first))
            let words = paragraph.flatMap { $0.split(separator: " ").map(String.init) }
            wrapped.append(contentsOf: HelpWrapping.lines(words: words, width: width - indent.count).map { indent + $0 })
        }
        for line in discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let text = line.drop { $0 == " " }
            if let (column, _) = row, !text.isEmpty, indentation(line) == column {
                row?.lines.append(line)
                continue
            }
            endRow()
            if text.isEmpty || text.hasPrefix("$ ") {
                endParagraph()
                wrapped.append(line)
            } else if let column = rowColumn(line) {
                endParagraph()
                row = (column, [line])
            } else {
                if let first = paragraph.first, indentation(first) != indentation(line) { endParagraph() }
                paragraph.append(line)
            }
        }
        endRow()
        endParagraph()
        return wrapped.joined(separator: "\n")
    }

    private static func indentation(_ line: String) -> Int {
        line.prefix { $0 == " " }.count
    }

    /// Where a table row's text starts: after its name (under 40 columns) and two spaces or
    /// more; nil for a line that is not such a row.
    static func rowColumn(_ line: String) -> Int? {
        let characters = Array(line)
        var index = indentation(line)
        guard index < characters.count else { return nil }
        while index + 1 < characters.count, index < 40 {
            if characters[index] == " ", characters[index + 1] == " " {
                var column = index
                while column < characters.count, characters[column] == " " { column += 1 }
                return column < characters.count ? column : nil
            }
            index += 1
        }
        return nil
    }

    /// A table row (its first line and those continuing it) in lines of at most `width`
    /// columns, its text continuing at `column`.
    private static func row(_ lines: [String], column: Int, width: Int) -> [String] {
        guard lines.contains(where: { $0.count > width }), let first = lines.first else { return lines }
        let label = String(first.prefix(column))
        let words = lines.flatMap { $0.dropFirst(column).split(separator: " ").map(String.init) }
        return HelpWrapping.lines(words: words, width: width - column).enumerated().map {
            ($0.offset == 0 ? label : String(repeating: " ", count: column)) + $0.element
        }
    }
}
