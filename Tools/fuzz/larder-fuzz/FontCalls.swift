import CFontTools
import Foundation

/// CFontTools' entry points as the font targets call them: each returns its status and, when it
/// made bytes, owns and frees them (`larder_font_buffer_free`). The same calls LarderPack's
/// `FontTools` makes, without its policy, so the targets see every status.
enum FontCalls {
    /// What a call said: its status, the bytes it made, its message.
    struct Outcome {
        var status: larder_font_status
        var bytes: [UInt8]
        var message: String
        var ok: Bool { status == LARDER_FONT_OK }
    }

    /// The production limit on a decoded font (LarderPack's `FontPipeline.conversionLimit`).
    static let limit = 16 << 20

    private static func call(
        _ body: (UnsafeMutablePointer<larder_font_buffer>, UnsafeMutablePointer<CChar>, Int) -> larder_font_status
    ) -> Outcome {
        var buffer = larder_font_buffer(bytes: nil, count: 0)
        var message = [CChar](repeating: 0x7F, count: 256)
        let status = message.withUnsafeMutableBufferPointer { body(&buffer, $0.baseAddress!, $0.count) }
        defer { larder_font_buffer_free(&buffer) }
        let bytes = buffer.bytes.map { Array(UnsafeBufferPointer(start: $0, count: buffer.count)) } ?? []
        require(status != LARDER_FONT_OK || buffer.bytes != nil, "status OK without bytes")
        require(status == LARDER_FONT_OK || buffer.bytes == nil, "status \(status.rawValue) with bytes")
        // A message is always a NUL-terminated string inside its buffer when the call failed.
        require(status == LARDER_FONT_OK || message.contains(0), "a message past its buffer")
        let text = message.contains(0) ? message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : ""
        return Outcome(status: status, bytes: bytes, message: text)
    }

    static func decodedSize(_ data: UnsafeRawBufferPointer) -> UInt64? {
        var size: UInt64 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer {
            larder_font_decoded_size(data.bindMemory(to: UInt8.self).baseAddress, data.count, &size, $0.baseAddress, $0.count)
        }
        return status == LARDER_FONT_OK ? size : nil
    }

    static func sfnt(_ data: UnsafeRawBufferPointer, limit: Int = limit) -> Outcome {
        call { larder_font_sfnt(data.bindMemory(to: UInt8.self).baseAddress, data.count, limit, $0, $1, $2) }
    }

    static func check(_ sfnt: [UInt8]) -> larder_font_status { checked(sfnt).status }

    /// larder_font_check's status and message.
    static func checked(_ sfnt: [UInt8]) -> (status: larder_font_status, message: String) {
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { text in
            sfnt.withUnsafeBufferPointer { larder_font_check($0.baseAddress, $0.count, text.baseAddress, text.count) }
        }
        return (status, status == LARDER_FONT_OK ? "" : message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    /// The font's characters as closed ranges, nil when HarfBuzz cannot read it.
    static func characters(_ sfnt: [UInt8]) -> [ClosedRange<UInt32>]? {
        var pairs: UnsafeMutablePointer<UInt32>?
        var count = 0
        let status = sfnt.withUnsafeBufferPointer { larder_font_characters($0.baseAddress, $0.count, &pairs, &count) }
        defer { free(pairs) }
        guard status == LARDER_FONT_OK, let pairs else { return nil }
        return (0..<count).map { pairs[2 * $0]...pairs[2 * $0 + 1] }
    }

    static func subset(_ sfnt: [UInt8], to ranges: [ClosedRange<UInt32>], allFeatures: Bool) -> Outcome {
        let pairs = ranges.flatMap { [$0.lowerBound, $0.upperBound] }
        return call { out, message, capacity in
            sfnt.withUnsafeBufferPointer { font in
                pairs.withUnsafeBufferPointer {
                    larder_font_subset(font.baseAddress, font.count, $0.baseAddress, ranges.count, nil, 0, allFeatures ? 1 : 0, out, message, capacity)
                }
            }
        }
    }

    static func woff2(_ sfnt: [UInt8], quality: Int32) -> Outcome {
        call { out, message, capacity in
            sfnt.withUnsafeBufferPointer { larder_font_woff2_encode($0.baseAddress, $0.count, quality, out, message, capacity) }
        }
    }

    /// larder_font_woff2_matches: nil when it matches, else what differs.
    static func woff2Mismatch(_ woff2: [UInt8], _ sfnt: [UInt8]) -> String? {
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { text in
            woff2.withUnsafeBufferPointer { stored in
                sfnt.withUnsafeBufferPointer { larder_font_woff2_matches(stored.baseAddress, stored.count, $0.baseAddress, $0.count, text.baseAddress, text.count) }
            }
        }
        return status == LARDER_FONT_OK ? nil : "status \(status.rawValue): " + message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The tables of an sfnt larder_font_check accepted (every one inside the file), by tag;
    /// nil when a tag repeats.
    static func tables(_ sfnt: [UInt8]) -> [UInt32: ArraySlice<UInt8>]? {
        func read32(_ at: Int) -> UInt32 { UInt32(sfnt[at]) << 24 | UInt32(sfnt[at + 1]) << 16 | UInt32(sfnt[at + 2]) << 8 | UInt32(sfnt[at + 3]) }
        var result: [UInt32: ArraySlice<UInt8>] = [:]
        for index in 0..<(Int(sfnt[4]) << 8 | Int(sfnt[5])) {
            let entry = 12 + 16 * index
            let offset = Int(read32(entry + 8))
            guard result.updateValue(sfnt[offset..<(offset + Int(read32(entry + 12)))], forKey: read32(entry)) == nil else { return nil }
        }
        return result
    }

    /// `cmap` as a tag.
    static func tag(_ text: StaticString) -> UInt32 {
        text.withUTF8Buffer { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
    }
}
