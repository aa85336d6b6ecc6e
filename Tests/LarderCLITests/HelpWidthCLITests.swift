import Foundation
import Testing

/// Help fits the terminal: USAGE and the discussion are wrapped to `COLUMNS`, as the OPTIONS
/// rows are (``CommandHelpTests/optionsAreWrappedToTheTerminal()``).
@Suite struct HelpWidthCLITests {
    /// The USAGE block: from "USAGE: " to the blank line after it.
    func usage(_ help: String) -> [Substring] {
        let block = help.components(separatedBy: "\nUSAGE: ").dropFirst().first?.components(separatedBy: "\n\n").first ?? ""
        return ("USAGE: " + block).split(separator: "\n")
    }

    @Test func usageIsWrappedToSixtyColumnsWithContinuationLinesIndented() throws {
        var wrapped = 0
        for words in CommandHelpTests.commands {
            let help = try CLI.run(words + ["--help"], environment: ["COLUMNS": "60"])
            #expect(help.status == 0, "\(words)")
            let lines = usage(help.stdout)
            #expect(lines.first?.hasPrefix("USAGE: larder") == true, "\(words): \(lines)")
            for line in lines { #expect(line.count <= 60, "larder \(words.joined(separator: " ")): '\(line)' is \(line.count) columns") }
            // A line after the first starts another form of the command under the first, or
            // continues one indented further, at an option or an argument: options are never split.
            for line in lines.dropFirst() where !line.hasPrefix(String(repeating: " ", count: 7) + "larder ") {
                let start = line.dropFirst(9)
                #expect(line.hasPrefix(String(repeating: " ", count: 9)), "\(words): '\(line)'")
                #expect(start.hasPrefix("[") || start.hasPrefix("-") || start.hasPrefix("<"), "\(words): '\(line)'")
            }
            if lines.count > 1 { wrapped += 1 }
        }
        #expect(wrapped > 10, "only \(wrapped) USAGE lines needed wrapping at 60 columns")
    }

    @Test func theDiscussionIsWrappedToSixtyColumns() throws {
        for words in CommandHelpTests.commands {
            let help = try CLI.run(words + ["--help"], environment: ["COLUMNS": "60"]).stdout
            // The discussion: after OPTIONS' blank line, before EXAMPLES (whose command lines stay whole).
            let afterOptions = help.components(separatedBy: "\nOPTIONS:\n").dropFirst().first ?? ""
            let discussion = afterOptions.components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n")
                .components(separatedBy: "\nEXAMPLES:\n").first ?? ""
            for line in discussion.split(separator: "\n") where !line.contains("$ ") {
                let longestWord = line.split(separator: " ").map(\.count).max() ?? 0
                #expect(line.count <= 60 || longestWord > 30, "larder \(words.joined(separator: " ")): '\(line)' is \(line.count) columns")
            }
        }
    }

    /// The OVERVIEW line, and the usage printed after a usage error, fit the terminal too.
    @Test func theOverviewAndAUsageErrorsUsageAreWrapped() throws {
        for words in CommandHelpTests.commands {
            let help = try CLI.run(words + ["--help"], environment: ["COLUMNS": "60"]).stdout
            let overview = help.components(separatedBy: "\n\n").first ?? ""
            #expect(overview.hasPrefix("OVERVIEW: "), "\(words)")
            for (number, line) in overview.split(separator: "\n").enumerated() {
                #expect(line.count <= 60, "larder \(words.joined(separator: " ")): '\(line)' is \(line.count) columns")
                if number > 0 { #expect(line.hasPrefix(String(repeating: " ", count: 10)), "\(words): '\(line)'") }
            }
        }
        let refused = try CLI.run(["publish"], environment: ["COLUMNS": "60"])
        #expect(refused.status == 64)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.first == "Error: Missing expected argument '<archive>...'", "\(refused.stderr)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: larder publish <archive>...") == true, "\(refused.stderr)")
        #expect(lines.last == "  See 'larder publish --help' for more information.", "\(refused.stderr)")
        // Three forms of publish, each starting a line under the first.
        #expect(lines.filter { $0.hasPrefix("       larder publish ") }.count == 2, "\(refused.stderr)")
        for line in lines.dropFirst() { #expect(line.count <= 60, "'\(line)' is \(line.count) columns") }
    }
}
