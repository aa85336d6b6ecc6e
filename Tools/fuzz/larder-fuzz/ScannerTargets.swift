import LarderFormat

/// The reference scanners the packer and the headless renderer run on every HTML and CSS file,
/// and the resolver that turns what they find into bundle paths.
enum ScannerTargets {
    static let html = FuzzTarget(
        name: "html",
        summary: "HTMLScanner.scan + ReferenceResolver; offsets in the file, rewrite ranges in order and exact, no path escapes",
        maximumLength: 1 << 14,
        run: { bytes in bytes.withMemoryRebound(to: UInt8.self) { check(HTMLScanner.scan($0), in: $0, isHTML: true) } },
        seeds: { try SeedSources.webFiles(extensions: ["html", "htm", "xhtml", "svg"]) })

    static let css = FuzzTarget(
        name: "css",
        summary: "CSSScanner.scan + ReferenceResolver; offsets in the file, font-source ranges cover url(...), no path escapes",
        maximumLength: 1 << 14,
        run: { bytes in bytes.withMemoryRebound(to: UInt8.self) { check(CSSScanner.scan($0), in: $0, isHTML: false) } },
        seeds: { try SeedSources.webFiles(extensions: ["css"]) })

    /// What the packer relies on: each reference's offset lies in the file; the ranges it
    /// rewrites (``Reference/replaceRange``) lie in the file, come in order without overlapping,
    /// and hold exactly the URL (HTML attributes) or a whole `url(...)` (CSS font sources); and a
    /// resolved local path never climbs out of the bundle.
    static func check(_ references: [Reference], in bytes: UnsafeBufferPointer<UInt8>, isHTML: Bool) {
        var lines = LineCounter(bytes)
        var rewrittenUpTo = 0
        for reference in references {
            require((0...bytes.count).contains(reference.offset), "offset \(reference.offset) outside the \(bytes.count) bytes")
            let (line, column) = lines.location(of: reference.offset)
            require(line >= 1 && column >= 1, "location \(line):\(column)")
            if let range = reference.replaceRange {
                require(range.lowerBound >= 0 && range.upperBound <= bytes.count, "rewrite range \(range) outside the \(bytes.count) bytes")
                require(range.lowerBound >= rewrittenUpTo, "rewrite range \(range) overlaps or precedes the one before (up to \(rewrittenUpTo))")
                rewrittenUpTo = range.upperBound
                let replaced = Array(bytes[range])
                if reference.kind == .fontSource {
                    let head = replaced.prefix(4).map { $0 | 0x20 }
                    require(head.elementsEqual("url(".utf8), "a font source's rewrite range starts '\(String(decoding: replaced.prefix(8), as: UTF8.self))', not 'url('")
                } else {
                    require(isHTML, "a CSS reference of kind \(reference.kind) with a rewrite range")
                    require(replaced.elementsEqual(reference.url.utf8), "a rewrite range holds '\(String(decoding: replaced.prefix(80), as: UTF8.self))', not the URL '\(reference.url.prefix(80))'")
                }
            }
            for document in ["index.html", "a/b/page.html"] {
                guard case .local(let path) = ReferenceResolver.resolve(reference.url, from: document) else { continue }
                let segments = path.split(separator: "/", omittingEmptySubsequences: false)
                require(!segments.isEmpty && !segments.contains(".."), "'\(reference.url.prefix(80))' from \(document) resolves to '\(path.prefix(80))'")
                require(!path.hasPrefix("/") && !segments.contains(""), "'\(reference.url.prefix(80))' resolves to '\(path.prefix(80))'")
            }
        }
    }
}
