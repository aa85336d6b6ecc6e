extension RenderCommand {
    /// `render`'s options, each declared once (``TypedOption``).
    enum Options {
        static let screenshot = TypedOption<String?>(OptionSpec(names: ["--screenshot"], value: "png", help: "Where to write the PNG (required)."))
        /// Without it, an archive goes to a temporary cache, a bundle is read from the default.
        static let cache = TypedOption<String?>(
            OptionSpec(
                names: ["--cache"], value: "dir",
                help: "The cache (default: $XDG_CACHE_HOME/larder or ~/.cache/larder; an archive given without it goes to a temporary cache)."))
    }
}
