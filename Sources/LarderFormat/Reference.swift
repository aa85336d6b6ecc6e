/// A URL found in an HTML or CSS source file.
public struct Reference: Sendable, Equatable {
    /// How the referencing document uses the target.
    public enum Kind: Sendable, Equatable {
        /// Loaded to render the page: images, scripts, stylesheets, preloads, CSS `url()`.
        case resource
        /// A stylesheet pulled in by CSS `@import`.
        case cssImport
        /// A font in an `@font-face` `src` list; rewritten to the `larder-font:` scheme.
        case fontSource
        /// The `href` of `<link rel="preload" as="font">`; rewritten to the `larder-font:` scheme
        /// like the `@font-face` source it warms, so an engine fetches the font once, not once
        /// by path and again by digest.
        case fontPreload
        /// A link the user may follow (`<a href>`): checked, but not needed by the first screen.
        case navigation
        /// `<link rel=preconnect|dns-prefetch>`: a host the engine would connect to (or look up)
        /// ahead of need. Nothing is loaded; only a remote one matters, and is warned about.
        case connectionHint

        /// Whether the target is loaded to render the page (not a link or a hint).
        public var loads: Bool { self != .navigation && self != .connectionHint }
    }

    /// The URL as written, with HTML entities and CSS escapes decoded.
    public var url: String
    public var kind: Kind
    /// The byte offset in the file where the URL starts, for line and column.
    public var offset: Int
    /// The bytes to replace when the target is rewritten to the `larder-font:` scheme: for
    /// font sources the whole `url(...)` or string; for HTML attributes (`src`, `href`,
    /// `poster`, `<object data>`) the value, when its bytes are the URL's (no character
    /// references); nil otherwise (CSS `url()` outside `@font-face`, `srcset` candidates).
    public var replaceRange: Range<Int>?
}

/// Turns byte offsets into 1-based lines and columns (columns count Unicode scalars) in one
/// pass over the text, for offsets asked in increasing order: the column is counted as the
/// position advances, so many offsets on one long line (minified CSS) cost one pass, not one
/// pass from the line's start each.
package struct LineCounter {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var line = 1
    /// The column of ``position``.
    private var column = 1

    package init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    package mutating func location(of offset: Int) -> (line: Int, column: Int) {
        let end = Swift.min(offset, bytes.count)
        if end < position {  // asked out of order: start again
            position = 0
            line = 1
            column = 1
        }
        while position < end {
            let byte = bytes[position]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            position += 1
        }
        return (line, column)
    }
}

@inline(__always) func isASCIIWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
}

@inline(__always) func asciiLower(_ byte: UInt8) -> UInt8 {
    byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
}
