import LarderPublish

extension KeysCommand {
    /// `keys`'s options, each declared once (``TypedOption``).
    enum Options {
        static let out = TypedOption<String>(
            OptionSpec(names: ["--out"], value: "folder", help: "generate: where to write the two files (default: the current folder; created, mode 0700, when missing)."),
            default: ".")
        static let origin = TypedOption<String?>(
            OptionSpec(names: ["--origin"], value: "folder", help: "grant, revoke, list: the origin folder 'larder publish' writes."))

        /// The message when `grant` has no --journey, too.
        static let journeyRefusal = "grant needs a valid '--journey <id>'"

        static let journey = TypedOption<String?>(
            OptionSpec(names: ["--journey"], value: "id", help: "grant: the journey the key may read."), default: nil
        ) { text in
            JourneyPublication.isValidJourneyID(text) ? .success(text) : .failure(OptionRefusal(message: journeyRefusal))
        }
    }
}
