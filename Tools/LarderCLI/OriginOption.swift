import Foundation

/// The `--origin <url>` option of `cache fetch` and `journey`.
enum OriginOption {
    static let spec = OptionSpec(names: ["--origin"], value: "url", help: "Base URL of the origin (see 'larder publish', Tools/origin).")

    /// `journey`'s `--origin`, typed (``TypedOption``): nil when absent, a usage error unless
    /// an http or https URL.
    static let typed = TypedOption<URL?>(spec, default: nil) { text in
        guard let origin = url(text) else { return .failure(OptionRefusal(message: "Invalid '--origin <url>': '\(text)' is not an http or https URL")) }
        return .success(origin)
    }

    /// The origin's base URL (with a trailing slash); nil unless it is http or https with a host.
    static func url(_ text: String) -> URL? {
        guard let url = URL(string: text.hasSuffix("/") ? text : text + "/"), url.scheme == "http" || url.scheme == "https",
            url.host?.isEmpty == false
        else { return nil }
        return url
    }
}
