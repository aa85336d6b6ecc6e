import LarderFormat

/// The optional `larder.json` at the root of a source folder:
/// `{"name": "...", "entry": "index.html", "renderer": {"protocol": 1, "capabilities": [...]},
/// "exclude": ["test/"], "include": ["jax/**", {"pattern": "config/*.js", "essential": true}]}`.
///
/// Without it a bundle is named after its folder, starts at `index.html`, and targets renderer
/// protocol 1 with both `prepare` and `visibility`; nothing is excluded or included.
public struct BundleConfiguration: Sendable, Equatable {
    public static let fileName = "larder.json"

    /// Files loaded at run time (by script, by name): always packed, never reported as
    /// unreferenced, their own references followed, and essential when asked.
    public struct Include: Sendable, Equatable {
        public var pattern: GlobPattern
        public var essential: Bool

        public init(_ pattern: GlobPattern, essential: Bool = false) {
            self.pattern = pattern
            self.essential = essential
        }
    }

    public var name: String
    public var entry: String
    public var renderer: Manifest.Renderer
    /// What these match (files, or folders with everything in them) is never packed and never
    /// checked. Applied before ``include``.
    public var exclude: [GlobPattern] = []
    public var include: [Include] = []
    /// How fonts are converted and split (`"fonts"`).
    public var fonts = FontSettings()

    public init(name: String, entry: String = "index.html", renderer: Manifest.Renderer = .init()) {
        self.name = name
        self.entry = entry
        self.renderer = renderer
    }

    /// The fields `larder.json` may have.
    static let fields = ["name", "entry", "renderer", "exclude", "include", "fonts"]

    /// Parses `larder.json`; absent fields take the defaults.
    /// - Throws: ``PackError`` with code ``PackError/Code/invalidConfiguration`` naming the field.
    public init(parsing bytes: [UInt8], defaultName: String) throws(PackError) {
        func invalid(_ field: String, _ message: String) -> PackError {
            PackError(.invalidConfiguration, "field '\(field)': \(message)", path: Self.fileName)
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch {
            let location = error.offset.map { SourceLocation(file: Self.fileName, offset: $0, in: bytes) }
            throw PackError(.invalidConfiguration, error.message, path: Self.fileName, location: location, cause: error)
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
                    default: throw invalid("renderer.\(rendererKey)", "unknown field" + ClosestName.hint(rendererKey, among: ["protocol", "capabilities"]))
                    }
                }
            case ("exclude", .array(let items)):
                exclude = try items.map { (item) throws(PackError) in
                    guard case .string(let text) = item else { throw invalid(key, "expected an array of strings") }
                    return try GlobPattern(text)
                }
            case ("include", .array(let items)):
                include = try items.map { (item) throws(PackError) in try Self.include(item, invalid) }
            case ("fonts", .object(let settings)): fonts = try FontSettings(parsing: settings)
            case ("fonts", _): throw invalid(key, "expected an object, found \(field.kindName)")
            case ("exclude", _), ("include", _): throw invalid(key, "expected an array, found \(field.kindName)")
            case ("name", _), ("entry", _): throw invalid(key, "expected a string, found \(field.kindName)")
            case ("renderer", _): throw invalid(key, "expected an object, found \(field.kindName)")
            default: throw invalid(key, "unknown field" + ClosestName.hint(key, among: Self.fields))
            }
        }
    }

    /// One `include` item: a pattern, or `{"pattern": "...", "essential": true}`.
    private static func include(_ item: JSONValue, _ invalid: (String, String) -> PackError) throws(PackError) -> Include {
        switch item {
        case .string(let text):
            return Include(try GlobPattern(text))
        case .object(let members):
            var pattern: GlobPattern?
            var essential = false
            for (key, value) in members {
                switch (key, value) {
                case ("pattern", .string(let text)): pattern = try GlobPattern(text)
                case ("essential", .bool(let flag)): essential = flag
                case ("pattern", _): throw invalid("include.pattern", "expected a string")
                case ("essential", _): throw invalid("include.essential", "expected true or false")
                default: throw invalid("include.\(key)", "unknown field" + ClosestName.hint(key, among: ["pattern", "essential"]))
                }
            }
            guard let pattern else { throw invalid("include", "an object needs a \"pattern\"") }
            return Include(pattern, essential: essential)
        default:
            throw invalid("include", "expected a pattern or {\"pattern\": ..., \"essential\": true}, found \(item.kindName)")
        }
    }
}
