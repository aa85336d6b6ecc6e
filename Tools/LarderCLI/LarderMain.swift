import Foundation

/// The version `larder --version` prints.
let larderVersion = "0.1.0"

let rootSpec = CommandSpec(
    name: "",
    overview: "Package, inspect and verify Larder bundles of web content for in-app flows, operate caches, run journeys, and render flows in a web engine.",
    usage: "larder <subcommand>",
    options: [
        OptionSpec(names: ["--version"], value: nil, help: "Show the version."),
        OptionSpec(
            names: ["--generate-completion-script"], value: "shell",
            help: "Print a completion script for bash, zsh or fish (see 'larder help' EXAMPLES)."),
    ],
    discussion: """
        SUBCOMMANDS:
          init                    Create a new flow's source folder, with the page runtime.
          pack                    Pack a source folder into a content-hashed bundle archive.
          inspect                 Show a bundle archive's manifest.
          verify                  Recompute and check every digest in a bundle archive.
          diff                    Show what changed between two bundles and what a device downloads.
          publish                 Publish archives to a static origin folder and point a journey at one.
          cache                   List, inspect, verify, repair and evict a device cache.
          journey                 Prepare or present a journey and show what the host did.
          render                  Render a flow's entry screen in the web engine and write a PNG.
          preview                 Serve a flow on 127.0.0.1 as a device loads it, reloading on every change.
          keys                    Generate the key pair a publisher signs journey documents with.

          See 'larder help <subcommand> [<subcommand>]' for detailed help.
        """)

/// The subcommands; `render` and `journey` reach the web engine through `engine`.
func commands(engine: any WebEngineRunner) -> [String: (spec: CommandSpec, run: ([String]) -> ExitCode)] {
    [
        "init": (InitCommand.spec, InitCommand.run),
        "pack": (PackCommand.spec, PackCommand.run),
        "inspect": (InspectCommand.spec, InspectCommand.run),
        "verify": (VerifyCommand.spec, VerifyCommand.run),
        "diff": (DiffCommand.spec, DiffCommand.run),
        "publish": (PublishCommand.spec, PublishCommand.run),
        "cache": (CacheCommand.spec, CacheCommand.run),
        "journey": (JourneyCommand.spec, { JourneyCommand.run($0, engine: engine) }),
        "render": (RenderCommand.spec, { RenderCommand.run($0, engine: engine) }),
        "keys": (KeysCommand.spec, KeysCommand.run),
        "preview": (PreviewCommand.spec, PreviewCommand.run),
    ]
}

/// Runs one `larder` command line (without the program name) and returns its exit status.
/// Shared by `larder`, which does not load the web engine (its `engine` hands the command
/// lines that need it to `larder-webkit`), and `larder-webkit`, which runs them in process.
/// - Parameters:
///   - arguments: the command line after the program name.
///   - engine: the web engine, for `render` and `journey --renderer webkit`.
/// - Returns: the exit status the program ends with.
@MainActor package func larderMain(_ arguments: [String], engine: any WebEngineRunner) -> ExitCode {
    let commands = commands(engine: engine)
    guard let first = arguments.first else {
        Console.error(rootSpec.helpText)
        return .usage
    }
    switch first {
    case "-h", "--help":
        Console.out(rootSpec.helpText)
        return .success
    case "--version":
        Console.out(larderVersion)
        return .success
    case "help":
        // `larder help cache verify`: the command the words reach, each of them a command.
        let (node, rest) = CommandTree.larder.walk(arguments.dropFirst())
        if let unknown = rest.first {
            Console.failure(
                "Unknown subcommand '\(shown(unknown))'\(node.hint(unknown))\nUsage: larder help [<subcommand> ...]\n  See 'larder --help' for more information.")
            return .usage
        }
        Console.out(node.spec.helpText)
        return .success
    case "--generate-completion-script":
        guard let shell = arguments.dropFirst().first.flatMap(CompletionScript.Shell.init(rawValue:)), arguments.count == 2 else {
            Console.failure("--generate-completion-script takes one of bash, zsh, fish\nUsage: larder --generate-completion-script <shell>")
            return .usage
        }
        Console.out(CompletionScript(tree: .larder, shell: shell).text)
        return .success
    default:
        // Under --json a failure prints one JSON object on stdout, whichever command failed.
        let json = FailureJSON.wanted(arguments)
        guard let command = commands[first] else {
            Console.failure("Unknown subcommand '\(shown(first))'\(CommandTree.larder.hint(first))\n" + UsageWrapping.block(rootSpec.usage, label: "Usage: ")
                    + "  See 'larder --help' for more information.")
            return FailureJSON.ensure(.usage, wanted: json)
        }
        return FailureJSON.ensure(command.run(Array(arguments.dropFirst())), wanted: json)
    }
}
