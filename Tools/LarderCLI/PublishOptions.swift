extension PublishCommand {
    /// `publish`'s options whose values are checked, each declared once (``TypedOption``).
    enum Options {
        static let refresh = TypedOption<Int64>(
            OptionSpec(names: ["--refresh"], value: "seconds", help: "Refresh interval in the journey document (default: 600)."), default: 600
        ) { text in
            guard let seconds = Int64(text), seconds > 0 else { return .failure(OptionRefusal(message: "--refresh must be a positive number of seconds")) }
            return .success(seconds)
        }

        static let rollbackTarget = TypedOption<Int64?>(
            OptionSpec(
                names: ["--to"], value: "revision",
                help: "With --rollback: the revision whose bundle to serve again (default: the newest earlier one with another bundle)."),
            default: nil
        ) { text in
            guard let revision = Int64(text), revision > 0 else { return .failure(OptionRefusal(message: "--to must be a revision number")) }
            return .success(revision)
        }
    }
}
