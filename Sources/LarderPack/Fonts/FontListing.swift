import Foundation
import LarderFormat

/// The font faces of a packed bundle, read back from its stylesheets and documents: each
/// `@font-face` rule's descriptors, `unicode-range` and `larder-font:` sources (by the
/// manifest), grouped by the `/* larder-font: <source bytes> <subset names> <source> */`
/// comment the packer writes before the rules it made from one source. What `larder inspect`
/// shows.
public enum FontListing {
    /// - Parameters:
    ///   - manifest: the bundle's manifest.
    ///   - read: the bytes of a bundle file (verified by the caller), nil when unavailable.
    public static func faces(of manifest: Manifest, read: (String) -> [UInt8]?) -> [PackedFontFace] {
        let byDigest = Dictionary(manifest.files.map { ($0.digest, $0) }, uniquingKeysWith: { first, _ in first })
        var faces: [PackedFontFace] = []
        for file in manifest.files where file.role == .style || file.role == .document {
            guard let bytes = read(file.path) else { continue }
            bytes.withUnsafeBufferPointer { buffer in
                let (_, rules) = file.role == .document ? HTMLScanner.scanWithFontFaces(buffer) : CSSScanner.scanWithFontFaces(buffer)
                var lines = LineCounter(buffer)
                var previousEnd = -1
                var pendingNames: [String] = []
                for range in rules {
                    defer { previousEnd = range.upperBound }
                    let adjacent = previousEnd >= 0 && buffer[previousEnd..<range.lowerBound].allSatisfy(isASCIIWhitespaceByte)
                    let rule = FontFaceRule(bytes: buffer, range: range)
                    let (line, column) = lines.location(of: range.lowerBound)
                    let sources = rule.sourceValues.last.map {
                        FontFaceRule.items(String(decoding: buffer[$0], as: UTF8.self)).compactMap(fontDigest)
                    } ?? []
                    let subsets = sources.compactMap { digest in byDigest[digest] }.map { packed in
                        PackedFontFace.Subset(
                            name: "", ranges: nil, path: packed.path, digest: packed.digest, bytes: packed.size, essential: packed.essential)
                    }
                    guard !subsets.isEmpty else { continue }
                    let (source, sourceBytes, names) = comment(before: range.lowerBound, in: buffer)
                    if source != nil { pendingNames = names }
                    let ranges = rangesDescriptor(rule, buffer)
                    let subsetName = ranges == nil ? "all" : pendingNames.isEmpty ? "" : pendingNames.removeFirst()
                    let named = subsets.map { subset in
                        var subset = subset
                        subset.ranges = ranges
                        subset.name = subsetName
                        return subset
                    }
                    if let last = faces.last, adjacent, source == nil, last.outcome == .converted, last.family == rule.family, last.weight == rule.weight,
                        last.style == rule.style, last.location.file == file.path
                    {
                        faces[faces.count - 1].subsets += named
                        continue
                    }
                    faces.append(
                        PackedFontFace(
                            location: SourceLocation(file: file.path, line: line, column: column), family: rule.family,
                            weight: rule.weight, style: rule.style, outcome: source == nil ? .unconverted : .converted,
                            source: source ?? subsets[0].path, sourceBytes: sourceBytes ?? subsets[0].bytes, dropped: [],
                            subsets: named, kept: []))
                }
            }
        }
        return faces
    }

    private static func fontDigest(_ item: String) -> Digest? {
        guard let start = item.range(of: FontURL.prefix) else { return nil }
        let hex = item[start.upperBound...].prefix(64)
        return try? Digest(parsing: "sha256:" + hex)
    }

    private static func rangesDescriptor(_ rule: FontFaceRule, _ bytes: UnsafeBufferPointer<UInt8>) -> UnicodeRanges? {
        let text = String(decoding: rule.text, as: UTF8.self)
        guard let start = text.range(of: "unicode-range:") else { return nil }
        let value = text[start.upperBound...].prefix { $0 != ";" && $0 != "}" }
        return UnicodeRanges(css: String(value))
    }

    /// `/* larder-font: <bytes> <names> <path> */` just before `offset` (whitespace between).
    private static func comment(before offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (String?, Int64?, [String]) {
        var end = offset
        while end > 0, isASCIIWhitespaceByte(bytes[end - 1]) { end -= 1 }
        guard end >= 2, bytes[end - 1] == UInt8(ascii: "/"), bytes[end - 2] == UInt8(ascii: "*") else { return (nil, nil, []) }
        let window = String(decoding: bytes[max(0, end - 1200)..<end], as: UTF8.self)
        guard let open = window.range(of: "/* larder-font: ", options: .backwards) else { return (nil, nil, []) }
        let fields = window[open.upperBound...].dropLast(2).trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 2)
        guard fields.count == 3, let size = Int64(fields[0]) else { return (nil, nil, []) }
        return (String(fields[2]), size, fields[1].split(separator: ",").map(String.init))
    }
}

