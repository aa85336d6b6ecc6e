import LarderFormat

/// The optional `larder.json` at the root of a source folder:
/// `{"name": "...", "entry": "index.html", "renderer": {"protocol": 1, "capabilities": [...]}}`.
///
/// Without it a bundle is named after its folder, starts at `index.html`, and targets renderer
/// protocol 1 with both `prepare` and `visibility`.
public struct BundleConfiguration: Sendable, Equatable {
    public static let fileName = "larder.json"

    public var name: String
    public var entry: String
    public var renderer: Manifest.Renderer

    public init(name: String, entry: String = "index.html", renderer: Manifest.Renderer = .init()) {
        self.name = name
        self.entry = entry
        self.renderer = renderer
    }

    /// Parses `larder.json`; absent fields take the defaults.
    /// - Throws: ``PackError`` with code ``PackError/Code/invalidConfiguration`` naming the field.
    public init(parsing bytes: [UInt8], defaultName: String) throws(PackError) {
        func invalid(_ field: String, _ message: String) -> PackError {
            PackError(.invalidConfiguration, "field '\(field)': \(message)", path: Self.fileName)
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch {
            throw PackError(.invalidConfiguration, error.message, path: Self.fileName, cause: error)
        }
        guard case .object(let members) = value else {
            throw PackError(.invalidConfiguration, "expected a JSON object", path: Self.fileName)
        }
        self.init(name: defaultName)
        for (key, field) in members {
            switch (key, field) {
            case ("name", .string(let text)):
                guard !text.isEmpty, text.utf8.count <= 200 else { throw invalid(key, "must be 1 to 200 bytes") }
                name = text
            case ("entry", .string(let text)): entry = text
            case ("renderer", .object(let renderer)):
                for (rendererKey, rendererField) in renderer {
                    switch (rendererKey, rendererField) {
                    case ("protocol", .int(let version)) where (1...1000).contains(version):
                        self.renderer.protocolVersion = Int(version)
                    case ("capabilities", .array(let items)):
                        var capabilities = Set<Manifest.Capability>()
                        for item in items {
                            guard case .string(let text) = item, let capability = Manifest.Capability(rawValue: text) else {
                                throw invalid(
                                    "renderer.capabilities",
                                    "unknown capability \(item); known: \(Manifest.Capability.allCases.map(\.rawValue))")
                            }
                            capabilities.insert(capability)
                        }
                        self.renderer.capabilities = capabilities
                    case ("protocol", _): throw invalid("renderer.protocol", "expected an integer from 1 to 1000")
                    case ("capabilities", _): throw invalid("renderer.capabilities", "expected an array of strings")
                    default: throw invalid("renderer.\(rendererKey)", "unknown field")
                    }
                }
            case ("name", _), ("entry", _): throw invalid(key, "expected a string, found \(field.kindName)")
            case ("renderer", _): throw invalid(key, "expected an object, found \(field.kindName)")
            default: throw invalid(key, "unknown field")
            }
        }
    }
}
