import LarderFormat

/// What a `larder:` or `larder-font:` URL asks for, decided from the URL alone: a bundle path
/// of one bundle, a font by digest, or a refusal with the HTTP status to answer.
///
/// Parsing never builds a file-system path: a bundle path is looked up in the manifest and
/// read through the lease, a font through ``LarderCache/resolveFont(_:)``.
package enum SchemeRoute: Equatable, Sendable {
    /// The scheme of a bundle's files: `larder://<bundle-hex>/<path>`.
    package static let bundleScheme = "larder"
    /// The scheme of fonts by digest (``FontURL``).
    package static let fontScheme = FontURL.scheme

    /// `larder://<bundle-hex>/<path>`: a file of the leased bundle (percent-decoded, NFC).
    case file(path: String)
    /// `larder-font://sha256/<hex>`: a font, resolved through the cache.
    case font(FontURL)
    /// Anything else: answer `status` with `message`.
    case refused(status: Int, message: String)

    /// Decides what `uri` asks for when `bundle` is the loaded bundle.
    /// - Parameters:
    ///   - uri: the request's URL as WebKit gives it (scheme in lowercase).
    ///   - bundle: the bundle whose files may be served.
    package static func of(_ uri: String, bundle: Digest) -> SchemeRoute {
        if FontURL.isOfScheme(uri) {
            do { return .font(try FontURL(parsing: uri)) } catch { return .refused(status: 400, message: error.message) }
        }
        let prefix = SchemeRoute.bundleScheme + "://"
        guard uri.hasPrefix(prefix) else { return .refused(status: 400, message: "not a larder: URL") }
        let rest = uri.dropFirst(prefix.count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let host = rest[..<slash]
        guard host == bundle.hex else {
            if host.utf8.count == 64, host.utf8.allSatisfy({ isLowerHex($0) }) {
                return .refused(status: 403, message: "another bundle's files are not served to this one")
            }
            return .refused(status: 400, message: "the host must be the loaded bundle's 64-digit hex digest")
        }
        var path = rest[slash...].dropFirst()
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        do { return .file(path: try URLPath.bundlePath(decoding: path)) } catch {
            return .refused(status: 400, message: error.message)
        }
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }
}
