import Foundation

extension JourneyCaptures {
    /// `journey captures`'s options, each declared once (``TypedOption``).
    enum Options {
        static let deliver = TypedOption<URL?>(
            OptionSpec(names: ["--deliver"], value: "url", help: "POST every queued event to this endpoint (with --key), oldest first."),
            default: nil
        ) { text in
            guard let url = OriginOption.url(text) else {
                return .failure(OptionRefusal(message: "Invalid '--deliver <url>': '\(text)' is not an http or https URL"))
            }
            return .success(url)
        }
        static let key = TypedOption<String?>(
            OptionSpec(names: ["--key"], value: "key", help: "The publishable key sent with delivered events (X-Larder-Key)."))
        static let journey = TypedOption<String?>(OptionSpec(names: ["--journey"], value: "id", help: "List only this journey's events."))
    }
}
