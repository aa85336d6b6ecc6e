import LarderFormat

/// A font URL of the `larder-font:` scheme, as `larder pack` writes into `@font-face` rules:
/// exactly `larder-font://sha256/<64 lowercase hex>`.
///
/// Parsing never turns a URL into a file-system path: anything but that exact form (another
/// host, more path, uppercase, other lengths, `..`, a query, a fragment, a port or user) is a
/// ``CacheError`` with code ``CacheError/Code/malformedFontURL``.
public struct FontURL: Sendable, Hashable, CustomStringConvertible {
    public static let prefix = "larder-font://sha256/"

    /// The digest of the font's bytes.
    public let digest: Digest

    public init(digest: Digest) { self.digest = digest }

    /// Parses a URL string.
    /// - Throws: ``CacheError`` naming what is wrong with the URL.
    public init(parsing text: String) throws(CacheError) {
        func malformed(_ reason: String) -> CacheError {
            CacheError(.malformedFontURL, "not a Larder font URL: \(reason); expected \(Self.prefix)<64 lowercase hex>", url: String(text.prefix(200)))
        }
        guard text.utf8.count <= 200 else { throw malformed("too long") }
        guard text.hasPrefix("larder-font:") else { throw malformed("the scheme must be 'larder-font' in lowercase") }
        guard text.hasPrefix("larder-font://") else { throw malformed("the scheme must be followed by '//'") }
        guard text.hasPrefix(Self.prefix) else { throw malformed("the host must be 'sha256' in lowercase") }
        let rest = text.dropFirst(Self.prefix.count)
        if rest.contains("?") { throw malformed("queries are not allowed") }
        if rest.contains("#") { throw malformed("fragments are not allowed") }
        if rest.contains("/") || rest.contains("%") || rest.contains(".") { throw malformed("the path must be a single digest") }
        do {
            digest = try Digest(hex: rest)
        } catch {
            throw malformed("the digest must be 64 lowercase hex digits")
        }
    }

    /// The URL string.
    public var description: String { Self.prefix + digest.hex }
}
