extension PreviewCommand {
    /// `preview`'s options, each declared once (``TypedOption``).
    enum Options {
        static let port = TypedOption<Int>(
            OptionSpec(names: ["--port"], value: "port", help: "The port on 127.0.0.1 (default: 4173; 0: any free port)."), default: 4173
        ) { text in
            guard let port = Int(text), (0...65535).contains(port) else {
                return .failure(OptionRefusal(message: "Invalid '--port': '\(text)' is not a port from 0 to 65535"))
            }
            return .success(port)
        }
    }
}
