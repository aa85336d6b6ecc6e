/// `--renderer <name>`: the renderer a `larder journey` command runs the host with.
enum Renderer: String, Sendable {
    /// Reads and verifies the files and fonts (the default).
    case headless
    /// Renders them in WebKitGTK.
    case webkit

    static let option = TypedOption<Renderer>(
        OptionSpec(
            names: ["--renderer"], value: "name",
            help: "headless (default: reads and verifies the files and fonts) or webkit (renders them in WebKitGTK)."),
        default: .headless
    ) { text in
        guard let renderer = Renderer(rawValue: text) else {
            return .failure(OptionRefusal(message: "Invalid '--renderer <name>': '\(text)' (headless or webkit)"))
        }
        return .success(renderer)
    }
}
