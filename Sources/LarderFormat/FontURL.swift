/// A font URL of the `larder-font:` scheme, as `larder pack` writes into `@font-face` rules:
/// exactly `larder-font://sha256/<64 lowercase hex>`.
///
/// The one rule set for the writer (the packer) and every reader (the cache, the headless
/// renderer, the web engines): parsing never turns a URL into a file-system path, and anything
/// but that exact form (another host, more path, uppercase, other lengths, `..`, a query, a
/// fragment, a port or user) is a ``FormatError`` with code ``FormatError/Code/malformedFontURL``.
public struct FontURL: Sendable, Hashable, CustomStringConvertible {
    /// The scheme's name.
    public static let scheme = "larder-font"
    /// What every font URL starts with; the digest's hex follows.
    public static let prefix = "larder-font://sha256/"

    /// The digest of the font's bytes.
    public let digest: Digest

    /// The URL of the font whose bytes have `digest`.
    public init(digest: Digest) { self.digest = digest }

    /// Whether `text` is of the `larder-font:` scheme (well-formed or not), as a web engine
    /// hands it over (scheme in lowercase).
    public static func isOfScheme(_ text: some StringProtocol) -> Bool {
        text.utf8.starts(with: "larder-font:".utf8)
    }

    /// Parses a URL string.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/malformedFontURL`` naming what
    ///   is wrong with the URL (``FormatError/url`` holds its first 200 characters).
    public init(parsing text: String) throws(FormatError) {
        var copy = text
        let parsed: Result<Digest, FormatError> = copy.withUTF8 { utf8 in
            func malformed(_ reason: String) -> Result<Digest, FormatError> {
                .failure(
                    FormatError(
                        .malformedFontURL, "not a Larder font URL: \(reason); expected \(Self.prefix)<64 lowercase hex>",
                        url: String(text.prefix(200))))
            }
            guard utf8.count <= 200 else { return malformed("too long") }
            guard utf8.starts(with: "larder-font:".utf8) else { return malformed("the scheme must be 'larder-font' in lowercase") }
            guard utf8.starts(with: "larder-font://".utf8) else { return malformed("the scheme must be followed by '//'") }
            guard utf8.starts(with: Self.prefix.utf8) else { return malformed("the host must be 'sha256' in lowercase") }
            let rest = UnsafeBufferPointer(rebasing: utf8[Self.prefix.utf8.count...])
            if rest.contains(UInt8(ascii: "?")) { return malformed("queries are not allowed") }
            if rest.contains(UInt8(ascii: "#")) { return malformed("fragments are not allowed") }
            if rest.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: ".") }) {
                return malformed("the path must be a single digest")
            }
            do throws(FormatError) {
                return .success(try Digest(hexUTF8: rest))
            } catch {
                return malformed("the digest must be 64 lowercase hex digits")
            }
        }
        digest = try parsed.get()
    }

    /// The URL string.
    public var description: String { Self.prefix + digest.hex }
}
