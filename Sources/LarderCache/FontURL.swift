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
        var copy = text
        let parsed: Result<Digest, CacheError> = copy.withUTF8 { utf8 in
            func malformed(_ reason: String) -> Result<Digest, CacheError> {
                .failure(
                    CacheError(
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
