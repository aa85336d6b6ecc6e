extension JourneyCommand {
    /// The text options of `journey prepare|present|status|logout`, each declared once
    /// (``TypedOption``); their checks, with their messages, stay with the configuration.
    enum Options {
        static let key = TypedOption<String?>(
            OptionSpec(names: ["--key"], value: "key", help: "The publishable key; it authorises showing the journey."))
        static let journey = TypedOption<String?>(OptionSpec(names: ["--journey"], value: "id", help: "The journey id."))
        static let embedded = TypedOption<String?>(
            OptionSpec(
                names: ["--embedded"], value: "archive", help: "A bundle archive shipped with the app, shown when nothing else can be."))
    }
}
