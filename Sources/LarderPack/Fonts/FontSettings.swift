import LarderFormat

/// The `"fonts"` object of `larder.json`: how the packer converts and splits the fonts
/// `@font-face` rules use.
///
/// ```json
/// "fonts": {"subsets": ["latin", "U+2190-2193"], "keepUsed": true,
///           "faces": {"FontAwesome": {"subsets": ["private-use"]}},
///           "files": {"fonts/Display.ttf": {"subsets": []}}}
/// ```
public struct FontSettings: Sendable, Equatable {
    /// One `unicode-range` subset: a named range (``NamedRanges``) or explicit ranges.
    public struct Subset: Sendable, Equatable {
        /// The range's name, or `u<first code point>` for explicit ranges; it names the file.
        public var name: String
        public var ranges: UnicodeRanges

        public init(name: String, ranges: UnicodeRanges) {
            self.name = name
            self.ranges = ranges
        }
    }

    /// Settings for one face (by `font-family`) or one source file, over the bundle's.
    public struct Override: Sendable, Equatable {
        /// nil: the bundle's; empty: the whole face, not split.
        public var subsets: [Subset]?
        public var keepUsed: Bool?

        public init(subsets: [Subset]? = nil, keepUsed: Bool? = nil) {
            self.subsets = subsets
            self.keepUsed = keepUsed
        }
    }

    /// Encode fonts as WOFF2 and keep one source per face; false keeps the sources and files as
    /// written (and then no subsets either).
    public var woff2 = true
    /// The subsets every face is split into; empty: one WOFF2 per face.
    public var subsets: [Subset] = []
    /// Characters the bundle's text uses are kept in a subset even when no range holds them.
    public var keepUsed = true
    /// By `font-family` (unquoted, as written).
    public var faces: [String: Override] = [:]
    /// By the bundle path of the source font file (wins over ``faces``).
    public var files: [String: Override] = [:]
    /// Brotli quality of the WOFF2 encoder, 0 to 11.
    public var quality = 11
    /// Layout features subsets keep beyond those engines apply unasked and those the CSS asks
    /// for (`"features": ["smcp"]`; `["*"]`: all of them).
    public var features: [String] = []

    public init() {}

    /// Some face is split into subsets (so the text's characters are needed).
    var splitsFaces: Bool {
        woff2 && (!subsets.isEmpty || faces.values.contains { $0.subsets?.isEmpty == false } || files.values.contains { $0.subsets?.isEmpty == false })
    }

    /// The subsets and the keep-used rule for a face from a file.
    public func resolved(family: String, file: String) -> (subsets: [Subset], keepUsed: Bool) {
        let face = faces[family]
        let path = files[file]
        return (path?.subsets ?? face?.subsets ?? subsets, path?.keepUsed ?? face?.keepUsed ?? keepUsed)
    }

    /// Parses the `"fonts"` object.
    /// - Throws: ``PackError`` with ``PackError/Code/invalidConfiguration`` naming the field.
    init(parsing members: [String: JSONValue]) throws(PackError) {
        func invalid(_ field: String, _ message: String) -> PackError {
            PackError(.invalidConfiguration, "field 'fonts.\(field)': \(message)", path: BundleConfiguration.fileName)
        }
        for (key, value) in members {
            switch (key, value) {
            case ("woff2", .bool(let flag)): woff2 = flag
            case ("keepUsed", .bool(let flag)): keepUsed = flag
            case ("quality", .int(let level)) where (0...11).contains(level): quality = Int(level)
            case ("features", .array(let items)):
                features = try items.map { (item) throws(PackError) in
                    guard case .string(let tag) = item, tag == "*" || (tag.utf8.count == 4 && tag.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 })
                    else { throw invalid(key, "expected OpenType feature tags such as \"smcp\", or \"*\"") }
                    return tag
                }
            case ("features", _): throw invalid(key, "expected an array of feature tags")
            case ("subsets", _): subsets = try Self.subsets(value, field: key, invalid)
            case ("faces", .object(let items)), ("files", .object(let items)):
                var overrides: [String: Override] = [:]
                for (name, item) in items {
                    overrides[name] = try Self.override(item, field: "\(key).\(name)", invalid)
                }
                if key == "faces" { faces = overrides } else { files = overrides }
            case ("woff2", _), ("keepUsed", _): throw invalid(key, "expected true or false")
            case ("quality", _): throw invalid(key, "expected an integer from 0 to 11")
            case ("faces", _), ("files", _): throw invalid(key, "expected an object")
            default: throw invalid(key, "unknown field" + ClosestName.hint(key, among: ["woff2", "keepUsed", "quality", "features", "subsets", "faces", "files"]))
            }
        }
        let splits = !subsets.isEmpty || faces.values.contains { $0.subsets?.isEmpty == false }
            || files.values.contains { $0.subsets?.isEmpty == false }
        if !woff2 && splits {
            throw invalid("subsets", "subsets are WOFF2 files: they need \"woff2\": true")
        }
    }

    private static func override(_ value: JSONValue, field: String, _ invalid: (String, String) -> PackError) throws(PackError) -> Override {
        guard case .object(let members) = value else { throw invalid(field, "expected an object") }
        var result = Override()
        for (key, item) in members {
            switch (key, item) {
            case ("subsets", _): result.subsets = try subsets(item, field: "\(field).subsets", invalid)
            case ("keepUsed", .bool(let flag)): result.keepUsed = flag
            case ("keepUsed", _): throw invalid("\(field).keepUsed", "expected true or false")
            default: throw invalid("\(field).\(key)", "unknown field" + ClosestName.hint(key, among: ["subsets", "keepUsed"]))
            }
        }
        return result
    }

    /// `["latin", "U+2190-2193, U+2713"]`: named ranges and explicit ones, each a subset.
    private static func subsets(_ value: JSONValue, field: String, _ invalid: (String, String) -> PackError) throws(PackError) -> [Subset] {
        guard case .array(let items) = value else { throw invalid(field, "expected an array of range names or U+ ranges") }
        var result: [Subset] = []
        for item in items {
            guard case .string(let text) = item else { throw invalid(field, "expected a range name or U+ ranges, found \(item.kindName)") }
            if let ranges = NamedRanges.ranges(named: text) {
                result.append(Subset(name: text, ranges: ranges))
            } else if let ranges = UnicodeRanges(css: text) {
                result.append(Subset(name: "u" + String(ranges.ranges[0].lowerBound, radix: 16), ranges: ranges))
            } else {
                throw invalid(
                    field, "'\(text)' is neither a range name (\(NamedRanges.all.map(\.name).joined(separator: ", "))) nor U+ ranges such as U+0000-00FF")
            }
            guard Set(result.map(\.name)).count == result.count else { throw invalid(field, "'\(text)' is listed twice") }
        }
        return result
    }
}
