extension JourneyHistoryCommand {
    /// `journey history`'s options, each declared once (``TypedOption``).
    enum Options {
        static let origin = TypedOption<String?>(OptionSpec(names: ["--origin"], value: "folder", help: "The origin folder 'larder publish' writes."))
        static let journey = TypedOption<String?>(OptionSpec(names: ["--journey"], value: "id", help: "The journey id."))
    }
}
