extension DiffCommand {
    /// `diff`'s options, each declared once (``TypedOption``).
    enum Options {
        static let cache = TypedOption<String?>(
            OptionSpec(names: ["--cache"], value: "dir", help: "Read both bundles from this cache (digest, hex prefix or name); read-only."))
        static let origin = TypedOption<String?>(
            OptionSpec(names: ["--origin"], value: "dir", help: "Read both bundles from this origin folder (larder publish output)."))
    }
}
