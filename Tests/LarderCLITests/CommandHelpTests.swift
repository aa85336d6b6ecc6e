import Foundation
import LarderTestSupport
import Testing

/// What a person meets when they ask the CLI for help or mistype: "did you mean" for commands,
/// options and larder.json fields; `larder help a b` walking the commands; an EXAMPLES section
/// on every command whose lines run; help wrapped to the terminal; completion scripts that
/// complete in bash, fish and zsh.
@Suite struct CommandHelpTests {
    /// Every command a person can reach, as the words after `larder`.
    static let commands: [[String]] =
        [[], ["pack"], ["inspect"], ["verify"], ["diff"], ["publish"], ["render"], ["keys"], ["cache"], ["journey"]]
        + ["ls", "show", "install", "fetch", "resolve", "verify", "gc", "evict", "pin", "unpin", "stats", "purge"].map { ["cache", $0] }
        + ["prepare", "present", "status", "logout", "captures", "prefetch", "trigger", "history"].map { ["journey", $0] }

    @Test(arguments: [
        (["pakc", "x"], "Error: Unknown subcommand 'pakc'; did you mean 'pack'?"),
        (["pack", "x", "--ouput", "y"], "Error: Unknown option '--ouput'; did you mean '--output'?"),
        (["cache", "verfy"], "Error: Unknown subcommand 'verfy'; did you mean 'verify'?"),
        (["journey", "prepar"], "Error: Unknown subcommand 'prepar'; did you mean 'prepare'?"),
        (["keys", "genrate", "x"], "Error: Unknown subcommand 'genrate'; did you mean 'generate'?"),
        (["help", "cache", "evcit"], "Error: Unknown subcommand 'evcit'; did you mean 'evict'?"),
        (["publish", "a", "--origin", "o", "--jorney", "j"], "Error: Unknown option '--jorney'; did you mean '--journey'?"),
        // Far from every name: no guess.
        (["frobnicate"], "Error: Unknown subcommand 'frobnicate'"),
    ])
    func aSlipGetsTheNameMeant(_ arguments: [String], _ message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == message, "\(result.stderr)")
    }

    @Test func aMistypedLarderJSONFieldIsNamedWithTheFieldMeant() throws {
        let scratch = try Scratch()
        let source = scratch.path + "/flow"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try Data("<p>hi".utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        try Data(#"{"name": "flow", "entyr": "index.html", "fonts": {"qualty": 5}}"#.utf8).write(to: URL(fileURLWithPath: source + "/larder.json"))
        let result = try CLI.run(["pack", source, "-o", scratch.path + "/out"])
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("unknown field; did you mean 'entry'?") || result.stderr.contains("unknown field; did you mean 'quality'?"), "\(result.stderr)")
    }

    @Test func helpWalksTheCommandsToTheOneNamed() throws {
        for words in Self.commands where words.count == 2 {
            let help = try CLI.run(["help"] + words)
            let flag = try CLI.run(words + ["--help"])
            #expect(help.status == 0 && flag.status == 0, "\(words)")
            #expect(help.stdout == flag.stdout, "larder help \(words.joined(separator: " "))")
            #expect(help.stdout.contains("\nUSAGE: larder \(words.joined(separator: " ")) ") || words[0] == "keys", "\(words)")
        }
    }

    /// Each example line, with `--help` added, parses: its options are the command's own.
    @Test func everyCommandHasExamplesThatParse() throws {
        for words in Self.commands {
            let help = try CLI.run(words + ["--help"])
            let examples = try #require(help.stdout.components(separatedBy: "\nEXAMPLES:\n").dropFirst().first, "\(words): no EXAMPLES")
            let lines = examples.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("$ larder ") }
            #expect(!lines.isEmpty, "\(words)")
            for line in lines where !line.contains(">") && !line.hasPrefix("$ larder help") && !line.hasPrefix("$ larder --") {
                let arguments = line.dropFirst("$ larder ".count).split(separator: " ").map(String.init)
                let result = try CLI.run(arguments + ["--help"])
                #expect(result.status == 0, "\(line): \(result.stderr)")
            }
        }
    }

    /// The USAGE lines name every option the command declares: they cannot drift from the
    /// options the command parses.
    @Test func usageNamesEveryOption() throws {
        for words in Self.commands where !words.isEmpty {
            let help = try CLI.run(words + ["--help"]).stdout
            let usage = try #require(help.components(separatedBy: "\nUSAGE: ").dropFirst().first?.components(separatedBy: "\n\n").first, "\(words)")
            let options = help.components(separatedBy: "\nOPTIONS:\n").dropFirst().first?.components(separatedBy: "\n\n").first ?? ""
            for line in options.split(separator: "\n") where line.hasPrefix("  -") {
                let names = line.dropFirst(2).split(separator: " ").first { $0.hasPrefix("--") }.map { String($0.trimmingCharacters(in: .init(charactersIn: ","))) }
                guard let name = names, name != "--help" else { continue }
                let short = line.dropFirst(2).hasPrefix("-") && !line.dropFirst(2).hasPrefix("--") ? String(line.dropFirst(2).prefix(2)) : nil
                #expect(usage.contains(name) || short.map { usage.contains($0 + " ") } == true, "larder \(words.joined(separator: " ")): USAGE omits \(name)")
            }
        }
    }

    @Test func optionsAreWrappedToTheTerminal() throws {
        for columns in [60, 100] {
            let help = try CLI.run(["publish", "--help"], environment: ["COLUMNS": String(columns)])
            let options = try #require(help.stdout.components(separatedBy: "\nOPTIONS:\n").dropFirst().first?.components(separatedBy: "\n\n").first)
            let widest = options.split(separator: "\n").map(\.count).max() ?? 0
            #expect(widest <= columns && widest > columns - 20, "COLUMNS=\(columns): widest option line \(widest)")
        }
    }

    func script(_ shell: String, _ scratch: Scratch) throws -> String {
        let result = try CLI.run(["--generate-completion-script", shell])
        #expect(result.status == 0, "\(result.stderr)")
        let path = scratch.path + "/larder." + shell
        try Data(result.stdout.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// What the shell offers after `line` (bash: the words of COMPREPLY).
    func bashCompletes(_ script: String, _ words: [String]) throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let output = try CLI.shell(
            "bash -c 'source \(script); COMP_WORDS=(\(quoted.replacingOccurrences(of: "'", with: "'\\''"))); COMP_CWORD=\(words.count - 1); _larder; printf \"%s\\n\" \"${COMPREPLY[@]}\"'")
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsSubcommandsAndOptions() throws {
        let scratch = try Scratch()
        let script = try script("bash", scratch)
        #expect(try bashCompletes(script, ["larder", "ca"]) == ["cache"])
        #expect(try bashCompletes(script, ["larder", "cache", "ver"]) == ["verify"])
        #expect(try bashCompletes(script, ["larder", "cache", "verify", "--re"]) == ["--repair"])
        #expect(try bashCompletes(script, ["larder", "journey", "prepare", "--off"]) == ["--offline"])
        #expect(Set(try bashCompletes(script, ["larder", "journey", "pre"])) == ["prepare", "present", "prefetch"])
        // A folder after --cache: file names.
        try FileManager.default.createDirectory(atPath: scratch.path + "/cachedir", withIntermediateDirectories: true)
        #expect(try bashCompletes(script, ["larder", "cache", "ls", "--cache", scratch.path + "/cached"]) == [scratch.path + "/cachedir"])
    }

    @Test func fishCompletesCommandsSubcommandsAndOptions() throws {
        let scratch = try Scratch()
        let script = try script("fish", scratch)
        func completes(_ line: String) throws -> [String] {
            let output = try CLI.shell("fish --no-config -c 'source \(script); complete -C \"\(line)\"'")
            return String(decoding: output, as: UTF8.self).split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try completes("larder ca") == ["cache"])
        #expect(try completes("larder cache ver") == ["verify"])
        #expect(try completes("larder cache verify --re") == ["--repair"])
        #expect(Set(try completes("larder journey pre")) == ["prepare", "present", "prefetch"])
    }

    @Test func zshLoadsTheScript() throws {
        let scratch = try Scratch()
        let script = try script("zsh", scratch)
        // Parses, and registers itself for larder once compinit ran.
        try CLI.shell("zsh -n \(script)")
        let output = try CLI.shell("zsh -f -c 'autoload -U compinit && compinit -u -D && source \(script) && print -r -- ${_comps[larder]}'")
        #expect(String(decoding: output, as: UTF8.self) == "_larder\n")
    }
}
