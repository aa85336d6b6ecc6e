import Foundation

/// A shell completion script for `larder`, generated from its ``CommandTree``
/// (`larder --generate-completion-script bash|zsh|fish`, argument-parser's spelling): it
/// completes subcommands at every level, each command's options, and file names for the
/// options and arguments that take a file or a folder.
struct CompletionScript {
    enum Shell: String, CaseIterable { case bash, zsh, fish }

    let tree: CommandTree
    let shell: Shell

    /// Value placeholders that name a file or a folder (`--cache <dir>`, `--sign <private-key>`).
    static let fileValues: Set<String> = ["dir", "folder", "out", "png", "private-key", "archive", "file", "path"]

    var text: String {
        switch shell {
        case .bash: bash
        case .zsh: zsh
        case .fish: fish
        }
    }

    /// Every command with its path (`/cache/verify`; the root is the empty path).
    private var commands: [(path: String, node: CommandTree)] {
        tree.flattened().map { (($0.path.map { "/" + $0 }.joined()), $0.node) }
    }

    private static func options(_ node: CommandTree) -> [OptionSpec] { node.spec.options + [CommandSpec.helpOption] }

    /// The case pattern matching every path below the root, for walking the command line.
    private var pathPattern: String { commands.dropFirst().map(\.path).joined(separator: "|") }

    /// `path:option` patterns of options whose value is a file, and of those whose value is not.
    private func valuePatterns(files: Bool) -> String {
        commands.flatMap { command in
            Self.options(command.node).filter { option in option.value.map { Self.fileValues.contains($0) == files } ?? false }
                .flatMap { option in option.names.map { "\"\(command.path):\($0)\"" } }
        }.joined(separator: "|")
    }

    private var bash: String {
        var cases = ""
        for (path, node) in commands {
            let words = node.children.map(\.word) + Self.options(node).flatMap(\.names)
            cases += "        \"\(path)\") words=\"\(words.joined(separator: " "))\" ;;\n"
        }
        return """
            # bash completion for larder (larder --generate-completion-script bash)
            _larder() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
                local cmdpath="" i word words=""
                for ((i = 1; i < COMP_CWORD; i++)); do
                    word="${COMP_WORDS[i]}"
                    case "$cmdpath/$word" in
                        \(pathPattern)) cmdpath="$cmdpath/$word" ;;
                    esac
                done
                case "$cmdpath:$prev" in
                    \(valuePatterns(files: true))) COMPREPLY=($(compgen -f -- "$cur")); return ;;
                    \(valuePatterns(files: false))) COMPREPLY=(); return ;;
                esac
                case "$cmdpath" in
            \(cases)    esac
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
                if [[ ${#COMPREPLY[@]} -eq 0 && $cur != -* ]]; then COMPREPLY=($(compgen -f -- "$cur")); fi
            }
            complete -F _larder larder

            """
    }

    private static func zshQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: ":", with: "\\:") + "'"
    }

    private var zsh: String {
        var cases = ""
        for (path, node) in commands {
            let described = node.children.map { Self.zshQuoted("\($0.word):\(Self.summary($0.spec.overview))") }
            let options = Self.options(node).flatMap(\.names)
            cases += "        \"\(path)\")\n            subcommands=(\(described.joined(separator: " ")))\n"
            cases += "            options=(\(options.joined(separator: " "))) ;;\n"
        }
        return """
            #compdef larder
            # zsh completion for larder (larder --generate-completion-script zsh): put it in a
            # folder of $fpath as _larder, or source it after compinit.
            _larder() {
                local cmdpath="" i
                local -a subcommands options
                for ((i = 2; i < CURRENT; i++)); do
                    case "$cmdpath/${words[i]}" in
                        \(pathPattern)) cmdpath="$cmdpath/${words[i]}" ;;
                    esac
                done
                case "$cmdpath:${words[CURRENT-1]}" in
                    \(valuePatterns(files: true))) _files; return ;;
                    \(valuePatterns(files: false))) return ;;
                esac
                case "$cmdpath" in
            \(cases)    esac
                if [[ ${words[CURRENT]} == -* ]]; then
                    compadd -- $options
                elif (( ${#subcommands} )); then
                    _describe 'subcommand' subcommands
                else
                    _files
                fi
            }
            if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
                _larder "$@"
            else
                compdef _larder larder
            fi

            """
    }

    private static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    private var fish: String {
        var lines = [
            "# fish completion for larder (larder --generate-completion-script fish)",
            "function __larder_at --description 'whether the command line so far reaches the command at path $argv[1]'",
            "    set -l cmdpath ''",
            "    for token in (commandline -opc)[2..-1]",
            "        switch \"$cmdpath/$token\"",
            "            case \(commands.dropFirst().map(\.path).joined(separator: " "))",
            "                set cmdpath \"$cmdpath/$token\"",
            "        end",
            "    end",
            "    test \"$cmdpath\" = \"$argv[1]\"",
            "end",
            "complete -c larder -f",
        ]
        for (path, node) in commands {
            let condition = "-n " + Self.fishQuoted("__larder_at '\(path)'")
            for child in node.children {
                lines.append("complete -c larder \(condition) -a \(child.word) -d \(Self.fishQuoted(Self.summary(child.spec.overview)))")
            }
            for option in Self.options(node) {
                var flags = option.names.map { $0.hasPrefix("--") ? "-l " + $0.dropFirst(2) : "-s " + $0.dropFirst() }.joined(separator: " ")
                if let value = option.value { flags += Self.fileValues.contains(value) ? " -r -F" : " -r" }
                lines.append("complete -c larder \(condition) \(flags) -d \(Self.fishQuoted(Self.summary(option.help)))")
            }
            if node.children.isEmpty { lines.append("complete -c larder \(condition) -F") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The first sentence of a help text, for a one-line description.
    static func summary(_ text: String) -> String {
        let sentence = text.split(separator: ". ", maxSplits: 1).first.map(String.init) ?? text
        return sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
    }
}
