extension PublishCommand {
    /// `publish`'s options whose values are checked, each declared once (``TypedOption``).
    enum Options {
        static let origin = TypedOption<String?>(
            OptionSpec(
                names: ["--origin"], value: "folder",
                help: "The folder a static HTTP server serves (see Tools/origin), or s3://<bucket>[/<prefix>] for an S3 bucket."))
        static let journey = TypedOption<String?>(
            OptionSpec(names: ["--journey"], value: "id", help: "Point this journey at the last archive (a new revision if it changed)."))
        static let key = TypedOption<String?>(OptionSpec(names: ["--key"], value: "publishable-key", help: "Grant this key the journey."))
        static let sign = TypedOption<String?>(
            OptionSpec(
                names: ["--sign"], value: "private-key",
                help: "Sign the journey document with this key (a .pem from 'larder keys generate'); with the same bundle, renews the signature."))
        static let expires = DurationOption.typed(
            OptionSpec(
                names: ["--expires-in"], value: "duration",
                help: "How long devices accept the signed document, e.g. 7d, 12h (default 7d); publish again with --sign to renew."))

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

        /// The message covers --rollback too, which refuses any --rollout.
        static let rolloutRefusal = "--rollout must be a percentage from 1 to 100, without --rollback"

        static let rollout = TypedOption<Int?>(
            OptionSpec(
                names: ["--rollout"], value: "percent",
                help: "Serve the new bundle to this share of identities (1-100, stable per identity); the rest keep the previous one. 100 completes it."),
            default: nil
        ) { text in
            guard let percent = Int(text), (1...100).contains(percent) else { return .failure(OptionRefusal(message: rolloutRefusal)) }
            return .success(percent)
        }
    }
}
