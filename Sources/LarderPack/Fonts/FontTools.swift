import CFontTools
import Foundation

/// What HarfBuzz's subsetter and Google's WOFF2 encoder (through CFontTools) say about a font
/// they cannot use.
public struct FontProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The bytes of font a WOFF or WOFF2 file decodes to, when that is over the limit the
    /// packer keeps (16 MiB); nil for every other problem.
    public var decodedBytes: UInt64?
    public init(_ message: String, decodedBytes: UInt64? = nil) {
        self.message = message
        self.decodedBytes = decodedBytes
    }
    public var description: String { message }
}

/// The font conversions: each calls one function of CFontTools, owns what it returns and
/// turns its status into a ``FontProblem``. Thread-safe.
enum FontTools {
    /// The libraries whose versions the converted bytes depend on, as `name version` pairs.
    static let libraries: [(name: String, version: String)] = [
        ("harfbuzz", String(cString: larder_font_harfbuzz_version())),
        ("woff2", String(cString: larder_font_woff2_version())),
        ("brotli", String(cString: larder_font_brotli_version())),
    ]

    /// `libraries` as one line, for cache keys and reports: `harfbuzz 6.0.0, woff2 1.0.2, brotli 1.0.9`.
    static let librariesLine = libraries.map { "\($0.name) \($0.version)" }.joined(separator: ", ")

    /// The revision of Larder's own conversion code: the `kern` remapping, the glyphs every
    /// subset keeps, the checks of what a conversion made. Raise it when that code changes the
    /// bytes it writes, so that a font cache filled by an earlier Larder is not reused.
    static let pipelineRevision = 2

    /// What a cached conversion depends on besides its input and options, as the last lines of
    /// its font-cache key: the libraries' versions and ``pipelineRevision``.
    static let conversionDependencies = "libraries \(librariesLine)\npipeline \(pipelineRevision)"

    /// The bytes of font a TrueType, OpenType, WOFF or WOFF2 file decodes to, read from its
    /// headers alone (`larder_font_decoded_size`).
    static func decodedSize(of bytes: [UInt8]) throws(FontProblem) -> UInt64 {
        var size: UInt64 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { text in
            bytes.withUnsafeBufferPointer { larder_font_decoded_size($0.baseAddress, $0.count, &size, text.baseAddress, text.count) }
        }
        guard status == LARDER_FONT_OK else { throw FontProblem(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }) }
        return size
    }

    /// Checks that a font file decodes to at most `limit` bytes of font (``decodedSize(of:)``).
    /// - Throws: ``FontProblem`` with ``FontProblem/decodedBytes`` when it decodes to more.
    static func requireDecodedSize(of bytes: [UInt8], atMost limit: Int) throws(FontProblem) {
        let decoded = try decodedSize(of: bytes)
        guard decoded <= UInt64(limit) else {
            throw FontProblem("it decodes to \(decoded) bytes of font, over the \(limit >> 20) MiB a font may have", decodedBytes: decoded)
        }
    }

    /// The plain sfnt of a TrueType, OpenType, WOFF or WOFF2 file, checked (`larder_font_sfnt`):
    /// nothing is inflated when the file decodes to more than `limit` bytes of font (a problem
    /// with ``FontProblem/decodedBytes``).
    static func sfnt(of bytes: [UInt8], limit: Int) throws(FontProblem) -> [UInt8] {
        try requireDecodedSize(of: bytes, atMost: limit)
        return try call { out, message, capacity in
            bytes.withUnsafeBufferPointer { larder_font_sfnt($0.baseAddress, $0.count, limit, out, message, capacity) }
        }
    }

    /// Whether `woff2` is the encoding of `sfnt` that ``woff2(_:quality:)`` makes at any quality
    /// (`larder_font_woff2_matches`: encoded again at Brotli quality 0 and compared, header, table
    /// directory and decompressed tables).
    /// - Throws: ``FontProblem`` saying where it differs.
    static func verifyWOFF2(_ woff2: [UInt8], encodes sfnt: [UInt8]) throws(FontProblem) {
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { text in
            woff2.withUnsafeBufferPointer { stored in
                sfnt.withUnsafeBufferPointer {
                    larder_font_woff2_matches(stored.baseAddress, stored.count, $0.baseAddress, $0.count, text.baseAddress, text.count)
                }
            }
        }
        guard status == LARDER_FONT_OK else {
            throw FontProblem(status == LARDER_FONT_NO_MEMORY ? "out of memory" : message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
    }

    /// The characters an sfnt maps (`larder_font_characters`).
    static func characters(of sfnt: [UInt8]) throws(FontProblem) -> UnicodeRanges {
        var pairs: UnsafeMutablePointer<UInt32>?
        var count = 0
        let status = sfnt.withUnsafeBufferPointer { larder_font_characters($0.baseAddress, $0.count, &pairs, &count) }
        defer { free(pairs) }
        guard status == LARDER_FONT_OK, let pairs else { throw FontProblem("HarfBuzz cannot read its character map") }
        return UnicodeRanges((0..<count).map { pairs[2 * $0]...pairs[2 * $0 + 1] })
    }

    /// The subset of an sfnt for `ranges` (`larder_font_subset`: kerning and hinting kept, and
    /// the layout features engines apply unasked plus `features`).
    static func subset(_ sfnt: [UInt8], to ranges: UnicodeRanges, features: FontFeatures) throws(FontProblem) -> [UInt8] {
        let pairs = ranges.ranges.flatMap { [$0.lowerBound, $0.upperBound] }
        let tags = features.tags.sorted().map { tag in tag.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        return try call { out, message, capacity in
            sfnt.withUnsafeBufferPointer { font in
                pairs.withUnsafeBufferPointer { ranges in
                    tags.withUnsafeBufferPointer {
                        larder_font_subset(
                            font.baseAddress, font.count, ranges.baseAddress, pairs.count / 2, $0.baseAddress, $0.count,
                            features.all ? 1 : 0, out, message, capacity)
                    }
                }
            }
        }
    }

    /// An sfnt encoded as WOFF2 at Brotli quality `quality` (`larder_font_woff2_encode`).
    static func woff2(_ sfnt: [UInt8], quality: Int) throws(FontProblem) -> [UInt8] {
        try call { out, message, capacity in
            sfnt.withUnsafeBufferPointer { larder_font_woff2_encode($0.baseAddress, $0.count, Int32(quality), out, message, capacity) }
        }
    }

    private static func call(
        _ body: (UnsafeMutablePointer<larder_font_buffer>, UnsafeMutablePointer<CChar>, Int) -> larder_font_status
    ) throws(FontProblem) -> [UInt8] {
        var buffer = larder_font_buffer(bytes: nil, count: 0)
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { body(&buffer, $0.baseAddress!, $0.count) }
        defer { larder_font_buffer_free(&buffer) }
        guard status == LARDER_FONT_OK, let bytes = buffer.bytes else {
            throw FontProblem(status == LARDER_FONT_NO_MEMORY ? "out of memory" : message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return Array(UnsafeBufferPointer(start: bytes, count: buffer.count))
    }

    /// The container a font file's first bytes announce.
    enum Container: Int, Comparable, Sendable {
        /// Not a font the tools read (SVG, EOT, a collection, anything else).
        case other = 0
        case sfnt = 1
        case woff = 2
        case woff2 = 3

        static func < (lhs: Container, rhs: Container) -> Bool { lhs.rawValue < rhs.rawValue }

        init(magic bytes: some Collection<UInt8>) {
            let head = Array(bytes.prefix(4))
            switch head {
            case Array("wOF2".utf8): self = .woff2
            case Array("wOFF".utf8): self = .woff
            case [0, 1, 0, 0], Array("true".utf8), Array("OTTO".utf8): self = .sfnt
            default: self = .other
            }
        }
    }
}
