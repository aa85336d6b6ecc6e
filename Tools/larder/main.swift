import Foundation

/// The version `larder --version` prints.
let larderVersion = "0.1.0"

let rootSpec = CommandSpec(
    name: "",
    overview: "Package, inspect and verify Larder bundles of web content for in-app flows, operate caches, run journeys, and render flows in a web engine.",
    usage: "larder <subcommand>",
    options: [OptionSpec(names: ["--version"], value: nil, help: "Show the version.")],
    discussion: """
        SUBCOMMANDS:
          pack                    Pack a source folder into a content-hashed bundle archive.
          inspect                 Show a bundle archive's manifest.
          verify                  Recompute and check every digest in a bundle archive.
          diff                    Show what changed between two bundles and what a device downloads.
          publish                 Publish archives to a static origin folder and point a journey at one.
          cache                   List, inspect, verify, repair and evict a device cache.
          journey                 Prepare or present a journey and show what the host did.
          render                  Render a flow's entry screen in the web engine and write a PNG.
          keys                    Generate the key pair a publisher signs journey documents with.

          See 'larder help <subcommand>' for detailed help.
        """)

let commands: [String: (spec: CommandSpec, run: ([String]) -> ExitCode)] = [
    "pack": (PackCommand.spec, PackCommand.run),
    "inspect": (InspectCommand.spec, InspectCommand.run),
    "verify": (VerifyCommand.spec, VerifyCommand.run),
    "diff": (DiffCommand.spec, DiffCommand.run),
    "publish": (PublishCommand.spec, PublishCommand.run),
    "cache": (CacheCommand.spec, CacheCommand.run),
    "journey": (JourneyCommand.spec, JourneyCommand.run),
    "render": (RenderCommand.spec, RenderCommand.run),
    "keys": (KeysCommand.spec, KeysCommand.run),
]

@MainActor func larderMain(_ arguments: [String]) -> ExitCode {
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
        guard let name = arguments.dropFirst().first else { Console.out(rootSpec.helpText); return .success }
        guard let command = commands[name] else {
            Console.error("Error: Unknown subcommand '\(name)'\nUsage: \(rootSpec.usage)\n  See 'larder --help' for more information.")
            return .usage
        }
        Console.out(command.spec.helpText)
        return .success
    default:
        guard let command = commands[first] else {
            Console.error("Error: Unknown subcommand '\(first)'\nUsage: \(rootSpec.usage)\n  See 'larder --help' for more information.")
            return .usage
        }
        return command.run(Array(arguments.dropFirst()))
    }
}

// A reader that goes away (`larder cache ls | head -1`) makes writes fail with EPIPE, which
// Console turns into exit 74, instead of killing the process with SIGPIPE.
signal(SIGPIPE, SIG_IGN)
exit(larderMain(Array(CommandLine.arguments.dropFirst())).rawValue)
