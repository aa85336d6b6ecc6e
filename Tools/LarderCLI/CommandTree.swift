import LarderFormat

/// The commands `larder` has, as a tree: the root, its subcommands (`pack`, `cache`, …) and
/// theirs (`cache verify`, `journey prepare`, `keys grant`). What `larder help a b`, the
/// "did you mean" hints and the completion scripts walk, so each follows the commands'
/// own specs.
struct CommandTree {
    /// The word that reaches this command (`verify` in `larder cache verify`); empty at the root.
    var word: String
    var spec: CommandSpec
    var children: [CommandTree] = []

    /// The child reached by `word`.
    func child(_ word: String) -> CommandTree? { children.first { $0.word == word } }

    /// The command `words` reach from here, and the words left over once no child matches.
    func walk(_ words: some Collection<String>) -> (node: CommandTree, rest: [String]) {
        guard let first = words.first, let next = child(first) else { return (self, Array(words)) }
        return next.walk(words.dropFirst())
    }

    /// Every command of the tree, this one first, each with the words that reach it.
    func flattened(_ path: [String] = []) -> [(path: [String], node: CommandTree)] {
        [(path, self)] + children.flatMap { $0.flattened(path + [$0.word]) }
    }

    /// `; did you mean 'x'?` for a subcommand word that is not one of this command's.
    func hint(_ typed: String) -> String {
        ClosestName.hint(typed, among: children.map(\.word))
    }

    /// larder's commands.
    static let larder = CommandTree(
        word: "", spec: rootSpec,
        children: [
            CommandTree(word: "pack", spec: PackCommand.spec),
            CommandTree(word: "inspect", spec: InspectCommand.spec),
            CommandTree(word: "verify", spec: VerifyCommand.spec),
            CommandTree(word: "diff", spec: DiffCommand.spec),
            CommandTree(word: "publish", spec: PublishCommand.spec),
            CommandTree(
                word: "cache", spec: CacheCommand.spec,
                children: CacheCommand.subcommands.sorted { $0.key < $1.key }.map { CommandTree(word: $0.key, spec: $0.value.spec) }),
            CommandTree(
                word: "journey", spec: JourneyCommand.spec,
                children: (JourneyCommand.subcommands.map { CommandTree(word: $0.key, spec: $0.value.spec) } + [
                    CommandTree(word: "history", spec: JourneyHistoryCommand.spec),
                    CommandTree(word: "captures", spec: JourneyCaptures.spec),
                    CommandTree(word: "prefetch", spec: JourneyPrefetch.spec),
                    CommandTree(word: "trigger", spec: JourneyTrigger.spec),
                ]).sorted { $0.word < $1.word }),
            CommandTree(word: "render", spec: RenderCommand.spec),
            // One spec for the four: their options are the keys command's.
            CommandTree(
                word: "keys", spec: KeysCommand.spec,
                children: KeysCommand.subcommandNames.map { CommandTree(word: $0, spec: KeysCommand.spec) }),
        ])
}
