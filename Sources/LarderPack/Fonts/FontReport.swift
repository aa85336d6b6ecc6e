import LarderFormat

/// What the packer did with one `@font-face` rule.
public struct PackedFontFace: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        /// Encoded as WOFF2 (whole, or split into subsets).
        case converted
        /// Its source was WOFF2 already and is packed as it is.
        case woff2
        /// No source could be converted: packed as written (see the `font-unconverted` warning).
        case unconverted
    }

    /// One `unicode-range` subset, or the whole face (name `all`).
    public struct Subset: Sendable, Equatable {
        public var name: String
        /// Its `unicode-range` as written: the characters of the subset the font maps, merged
        /// past 256 ranges (`UnicodeRanges.coalesced(within:limit:)`); nil: the whole face.
        public var ranges: UnicodeRanges?
        /// The packed file.
        public var path: String
        public var digest: Digest
        public var bytes: Int64
        /// Marked essential: the first screen's text uses a character of it.
        public var essential: Bool
    }

    /// A character the bundle's text uses that no declared range holds, kept in a subset.
    public struct KeptCharacter: Sendable, Equatable {
        public var scalar: UInt32
        /// Where it is used first.
        public var location: SourceLocation
        /// The subset it was added to.
        public var subset: String

        /// `U+2192`.
        public var code: String { "U+" + String(scalar, radix: 16, uppercase: true).leftPadded(to: 4) }
    }

    /// The stylesheet or document and the place of the rule.
    public var location: SourceLocation
    public var family: String
    public var weight: String
    public var style: String
    public var outcome: Outcome
    /// The source file the packed face comes from (the best of the rule's sources).
    public var source: String
    public var sourceBytes: Int64
    /// The other sources of the rule, not packed (unless something else uses them).
    public var dropped: [String]
    public var subsets: [Subset]
    public var kept: [KeptCharacter]

    /// The bytes packed for the face.
    public var packedBytes: Int64 { subsets.reduce(0) { $0 + $1.bytes } }
}

/// The fonts of a pack: each face, what the font cache did, and the libraries the bytes came from.
public struct FontPackReport: Sendable, Equatable {
    public var faces: [PackedFontFace] = []
    /// Conversions taken from the font cache, and made.
    public var cacheHits = 0
    public var conversions = 0
    /// Entries of the cache that did not check out and were made again.
    public var rejectedCacheEntries = 0
    /// Hits not signed with this user's font cache key (written elsewhere, or before entries
    /// were signed), used after they were checked against their sources.
    public var verifiedCacheEntries = 0
    /// The font cache folder, nil when none was used.
    public var cacheFolder: String?
    /// `harfbuzz 6.0.0, woff2 1.0.2, brotli 1.0.9`.
    public var libraries: String = FontTools.librariesLine

    public init() {}
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
