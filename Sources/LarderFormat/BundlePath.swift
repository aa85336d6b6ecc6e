import Foundation

/// The rules every path inside a bundle follows, shared by the packer, the manifest decoder and
/// the archive reader: relative, `/`-separated, no empty, `.` or `..` segments, no backslash or
/// control characters, valid UTF-8 in Unicode Normalization Form C, and within length limits.
public enum BundlePath {
    /// The longest path accepted, in UTF-8 bytes.
    public static let maximumBytes = 1024
    /// The longest single segment accepted, in UTF-8 bytes (a common file-system limit).
    public static let maximumSegmentBytes = 255
    /// The most segments (folders plus file name) accepted.
    public static let maximumDepth = 32

    /// Checks raw path bytes, as found in an archive or a directory listing.
    /// - Returns: the path as a string.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/invalidPath``.
    public static func validate(bytes: [UInt8]) throws(FormatError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let shown = DisplayText.escaping(bytes: bytes.prefix(120))
            throw FormatError(.invalidPath, "name is not valid UTF-8: '\(shown)'", entry: shown)
        }
        try validate(text)
        return text
    }

    /// Checks a path string.
    /// - Throws: ``FormatError`` with code ``FormatError/Code/invalidPath`` saying which rule
    ///   the path breaks.
    public static func validate(_ path: String) throws(FormatError) {
        func reject(_ reason: String) -> FormatError {
            FormatError(.invalidPath, "unsafe bundle path: \(reason)", entry: String(path.prefix(200)))
        }
        let utf8 = path.utf8
        guard !utf8.isEmpty else { throw reject("the path is empty") }
        guard utf8.count <= maximumBytes else { throw reject("longer than \(maximumBytes) bytes") }
        guard utf8.first != UInt8(ascii: "/") else { throw reject("absolute paths are not allowed") }
        for byte in utf8 where byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\\") {
            throw reject(byte == UInt8(ascii: "\\") ? "backslashes are not allowed" : "control characters are not allowed")
        }
        let segments = utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard segments.count <= maximumDepth else { throw reject("deeper than \(maximumDepth) levels") }
        for segment in segments {
            if segment.isEmpty { throw reject("empty segment ('//' or trailing '/')") }
            if segment.elementsEqual(".".utf8) { throw reject("'.' segments are not allowed") }
            if segment.elementsEqual("..".utf8) { throw reject("'..' segments are not allowed") }
            if segment.count > maximumSegmentBytes { throw reject("a segment is longer than \(maximumSegmentBytes) bytes") }
        }
        if utf8.contains(where: { $0 >= 0x80 }) {
            let normalized = path.precomposedStringWithCanonicalMapping
            guard normalized.utf8.elementsEqual(utf8) else {
                throw reject("not in Unicode Normalization Form C (NFC): an accent is a separate combining character instead of composed with its letter")
            }
        }
    }

    /// Orders paths by their UTF-8 bytes, the order of manifests and archives.
    public static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }
}
