extension InitCommand {
    /// `init`'s options, each declared once (``TypedOption``).
    enum Options {
        static let font = TypedOption<String?>(
            OptionSpec(names: ["--font"], value: "ttf", help: "The font the flow draws with (default: DejaVu Sans from fonts-dejavu-core)."))
        static let licence = TypedOption<String?>(
            OptionSpec(names: ["--licence"], value: "txt", help: "The font's licence text, packed with it (required with --font)."))
    }
}
