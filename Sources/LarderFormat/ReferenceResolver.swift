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
    /// A URL every renderer refuses, and why: a path whose percent-encoding is malformed
    /// (``URLPath``), or a `larder-font:` URL not of the scheme's exact form (``FontURL``).
    case malformed(String)
}

/// Turns URLs found in a document into bundle paths, the way a browser resolves them against
/// the document's own URL: relative to its folder, `/` from the bundle root, query and fragment
/// dropped, percent-escapes decoded strictly (``URLPath``, as the renderers decode them), `.`
/// and `..` applied, NFC-normalised like manifest paths. Shared by the packer (checking
/// references) and the headless renderer (checking the entry document against the manifest).
package enum ReferenceResolver {

    package static func resolve(_ url: String, from documentPath: String) -> ReferenceTarget {
        let trimmed = trimmingSpace(url)
        let utf8 = trimmed.utf8
        guard let first = utf8.first, first != UInt8(ascii: "#") else { return .ignored }
        if first == UInt8(ascii: "/"), utf8.dropFirst().first == UInt8(ascii: "/") { return .remote(trimmed) }
        if let scheme = scheme(of: utf8) {
            if scheme == FontURL.scheme {
                do { _ = try FontURL(parsing: trimmed) } catch { return .malformed(error.message) }
            }
            return scheme == "http" || scheme == "https" ? .remote(trimmed) : .ignored
        }
        var path = Substring(trimmed)
        if let cut = path.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { path = path[..<cut] }
        if path.isEmpty { return .ignored }  // "?x" refers to the document itself
        let decoded: String
        do { decoded = try URLPath.percentDecoded(path) } catch { return .malformed(error.message) }
        var joined = SegmentStack()
        if decoded.utf8.first != UInt8(ascii: "/") {
            // The document's folder: every segment of its path but the last.
            let folder = documentPath.utf8
            var start = folder.startIndex
            while let slash = folder[start...].firstIndex(of: UInt8(ascii: "/")) {
                joined.push(folder[start..<slash])
                start = folder.index(after: slash)
            }
        }
        let parts = decoded.utf8
        var start = parts.startIndex
        while true {
            let slash = parts[start...].firstIndex(of: UInt8(ascii: "/"))
            let part = parts[start..<(slash ?? parts.endIndex)]
            let isLast = slash == nil
            if part.isEmpty || part.elementsEqual(CollectionOfOne(UInt8(ascii: "."))) {
                if isLast { joined.push("index.html".utf8) }
            } else if part.elementsEqual("..".utf8) {
                guard joined.pop() else { return .escaping }
                if isLast { joined.push("index.html".utf8) }
            } else {
                joined.push(part)
            }
            guard let slash else { break }
            start = parts.index(after: slash)
        }
        let text = String(decoding: joined.bytes, as: UTF8.self)
        return .local(joined.bytes.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping)
    }

    /// A path being resolved: its segments joined with `/`, and where each starts.
    private struct SegmentStack {
        var bytes: [UInt8] = []
        private var starts: [Int] = []

        init() {
            bytes.reserveCapacity(64)
            starts.reserveCapacity(8)
        }

        mutating func push<Segment: Collection<UInt8>>(_ segment: Segment) {
            if !starts.isEmpty { bytes.append(UInt8(ascii: "/")) }
            starts.append(bytes.count)
            bytes.append(contentsOf: segment)
        }

        /// Drops the last segment; false when there is none.
        mutating func pop() -> Bool {
            guard let start = starts.popLast() else { return false }
            bytes.removeSubrange(max(0, start - 1)...)
            return true
        }
    }

    /// `text` without leading and trailing white space and newlines; Foundation's trimming
    /// only when an end has some (most URLs have none, and it is the costly part).
    private static func trimmingSpace(_ text: String) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last else { return text }
        // ASCII ends that are not white space (nearly every URL) need no look at the scalars.
        if first < 0x80, last < 0x80, !isASCIIWhitespace(first), first != 0x0B, !isASCIIWhitespace(last), last != 0x0B {
            return text
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return text }
        let space = CharacterSet.whitespacesAndNewlines
        return space.contains(first) || space.contains(last) ? text.trimmingCharacters(in: space) : text
    }

    /// The lowercased scheme of an absolute URL, if it has one: ASCII letters, then letters,
    /// digits, `+`, `-` or `.`, up to the first `:`.
    private static func scheme(of url: String.UTF8View) -> String? {
        guard let colon = url.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let candidate = url[..<colon]
        guard let first = candidate.first, (first | 0x20) >= 0x61, (first | 0x20) <= 0x7A,
            candidate.allSatisfy({ byte in
                let lower = byte | 0x20
                return (lower >= 0x61 && lower <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            })
        else { return nil }
        return String(decoding: candidate.map(asciiLower), as: UTF8.self)
    }
}
