import LarderFormat

/// Something packing noticed that does not stop it: reported, grouped by ``kind``, and an
/// error only where an option says so (`--strict` for remote references).
public struct PackWarning: Sendable, Equatable {
    /// What kind of thing was noticed; the raw value is the stable name in `--json` output.
    public struct Kind: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }

        /// A file nothing reachable from the entry document refers to, and no `include`
        /// pattern covers (still packed).
        public static let unreferenced = Kind(rawValue: "unreferenced")
        /// An `http(s):` URL a page loads (script, stylesheet, image, media, font, frame):
        /// it comes from the network, not the bundle. Links a user may follow are not reported.
        public static let remoteReference = Kind(rawValue: "remote-reference")
        /// An `include` pattern of `larder.json` that matches no file.
        public static let unmatchedInclude = Kind(rawValue: "unmatched-include")
        /// A font of an `@font-face` rule that HarfBuzz or woff2 cannot read (truncated, not a
        /// font, a collection, over the size limit): the rule and its files are packed as
        /// written. Errors with `--strict`.
        public static let unconvertedFont = Kind(rawValue: "font-unconverted")
        /// A character the text uses that the font has but no subset holds, with
        /// `"keepUsed": false`: it shows in a fallback font. Errors with `--strict`.
        public static let uncoveredCharacter = Kind(rawValue: "uncovered-character")
        /// The font cache could not be written (the pack converts without it).
        public static let fontCache = Kind(rawValue: "font-cache")
    }

    public var kind: Kind
    /// What it is about, for people.
    public var message: String
    /// The bundle path involved.
    public var path: String?
    /// Where in a source file, for references.
    public var location: SourceLocation?
    /// The URL, for references.
    public var url: String?

    public init(_ kind: Kind, _ message: String, path: String? = nil, location: SourceLocation? = nil, url: String? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
        self.location = location
        self.url = url
    }

    /// The place to show: `file:line:column` or the path.
    public var place: String? { location.map(\.description) ?? path }
}
