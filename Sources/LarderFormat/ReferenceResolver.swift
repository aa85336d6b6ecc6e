import Foundation

/// What a URL in a bundle's source points at.
package enum ReferenceTarget: Equatable {
    /// A file of the bundle, by bundle path.
    case local(String)
    /// An `http:`, `https:` or protocol-relative URL.
    case remote(String)
    /// Something the packer leaves alone: `data:`, `mailto:`, fragments, other schemes.
    case ignored
    /// A relative path that climbs above the bundle root.
    case escaping
}

/// Turns URLs found in a document into bundle paths, the way a browser resolves them against
/// the document's own URL: relative to its folder, `/` from the bundle root, query and fragment
/// dropped, percent-escapes decoded, `.` and `..` applied, NFC-normalised like manifest paths.
/// Shared by the packer (checking references) and the headless renderer (checking the entry
/// document against the manifest).
package enum ReferenceResolver {
    private static let ignoredSchemes: Set<String> = [
        "data", "mailto", "tel", "sms", "javascript", "about", "blob", "larder-font", "file",
    ]

    package static func resolve(_ url: String, from documentPath: String) -> ReferenceTarget {
        let trimmed = trimmingSpace(url)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .ignored }
        if trimmed.hasPrefix("//") { return .remote(trimmed) }
        if let scheme = scheme(of: trimmed) {
            return scheme == "http" || scheme == "https" ? .remote(trimmed) : .ignored
        }
        var path = Substring(trimmed)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        if path.isEmpty { return .ignored }  // "?x" refers to the document itself
        let decoded = path.contains("%") ? String(path).removingPercentEncoding ?? String(path) : String(path)
        var segments: [Substring] = []
        if !decoded.hasPrefix("/") {
            segments = documentPath.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        }
        let parts = decoded.split(separator: "/", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            switch part {
            case "", ".":
                if index == parts.count - 1 { segments.append("index.html") }
            case "..":
                guard !segments.isEmpty else { return .escaping }
                segments.removeLast()
                if index == parts.count - 1 { segments.append("index.html") }
            default:
                segments.append(part)
            }
        }
        let joined = segments.joined(separator: "/")
        return .local(joined.utf8.allSatisfy { $0 < 0x80 } ? joined : joined.precomposedStringWithCanonicalMapping)
    }

    /// `text` without leading and trailing white space and newlines; Foundation's trimming
    /// only when an end has some (most URLs have none, and it is the costly part).
    private static func trimmingSpace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return text }
        let space = CharacterSet.whitespacesAndNewlines
        return space.contains(first) || space.contains(last) ? text.trimmingCharacters(in: space) : text
    }

    /// The lowercased scheme of an absolute URL, if it has one.
    private static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let candidate = url[..<colon]
        guard let first = candidate.first, first.isASCII, first.isLetter,
            candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { return nil }
        return candidate.lowercased()
    }
}
