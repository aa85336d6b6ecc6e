import Foundation
import LarderTestSupport

/// Fonts built in a test from a real one: its tables read from the sfnt's directory, a WOFF 1.0
/// file of them (with extra tables, stored or zlib-compressed), and the same font with another
/// character map.
enum FontFixtures {
    struct Table {
        var tag: String
        var bytes: [UInt8]
    }

    static func read16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    static func read32(_ bytes: [UInt8], _ at: Int) -> Int { read16(bytes, at) << 16 | read16(bytes, at + 2) }
    static func append16(_ value: Int, to out: inout [UInt8]) { out += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func append32(_ value: Int, to out: inout [UInt8]) {
        append16(value >> 16 & 0xFFFF, to: &out)
        append16(value & 0xFFFF, to: &out)
    }
    static func padded(_ count: Int) -> Int { (count + 3) & ~3 }

    /// The tables of an sfnt, in directory order.
    static func tables(of sfnt: [UInt8]) -> [Table] {
        (0..<read16(sfnt, 4)).map { index in
            let entry = 12 + index * 16
            let offset = read32(sfnt, entry + 8)
            return Table(tag: String(decoding: sfnt[entry..<(entry + 4)], as: UTF8.self), bytes: Array(sfnt[offset..<(offset + read32(sfnt, entry + 12))]))
        }
    }

    /// An sfnt of these tables (sorted by tag; checksums left 0: no reader here checks them).
    static func sfnt(_ tables: [Table], flavor: Int = 0x0001_0000) -> [UInt8] {
        let sorted = tables.sorted { Array($0.tag.utf8).lexicographicallyPrecedes(Array($1.tag.utf8)) }
        var out: [UInt8] = []
        append32(flavor, to: &out)
        append16(sorted.count, to: &out)
        out += [0, 0, 0, 0, 0, 0]  // search fields: not read
        var offset = 12 + 16 * sorted.count
        for table in sorted {
            out += Array(table.tag.utf8)
            append32(0, to: &out)
            append32(offset, to: &out)
            append32(table.bytes.count, to: &out)
            offset += padded(table.bytes.count)
        }
        for table in sorted { out += table.bytes + [UInt8](repeating: 0, count: padded(table.bytes.count) - table.bytes.count) }
        return out
    }

    /// A WOFF 1.0 file: each table with its stored bytes (zlib when `stored` is shorter than
    /// `length`) and the length it inflates to.
    static func woff(_ tables: [(tag: String, stored: [UInt8], length: Int)], flavor: Int = 0x0001_0000) -> [UInt8] {
        let sorted = tables.sorted { Array($0.tag.utf8).lexicographicallyPrecedes(Array($1.tag.utf8)) }
        var data: [UInt8] = []
        var directory: [UInt8] = []
        let start = 44 + 20 * sorted.count
        for table in sorted {
            directory += Array(table.tag.utf8)
            append32(start + data.count, to: &directory)
            append32(table.stored.count, to: &directory)
            append32(table.length, to: &directory)
            append32(0, to: &directory)
            data += table.stored + [UInt8](repeating: 0, count: padded(table.stored.count) - table.stored.count)
        }
        var header: [UInt8] = Array("wOFF".utf8)
        append32(flavor, to: &header)
        append32(start + data.count, to: &header)
        append16(sorted.count, to: &header)
        append16(0, to: &header)
        append32(12 + 16 * sorted.count + sorted.reduce(0) { $0 + padded($1.length) }, to: &header)
        append16(1, to: &header)
        append16(0, to: &header)
        header += [UInt8](repeating: 0, count: 20)  // no metadata, no private data
        return header + directory + data
    }

    /// A zlib stream (RFC 1950) of `count` zeros, about a thousand times smaller (a gzip bomb's
    /// deflate blocks, ``FaultOrigin/gzipBomb(inflatedSize:)``, with zlib's header and Adler-32).
    static func zlibOfZeros(_ count: Int) -> [UInt8] {
        let gzip = FaultOrigin.gzipBomb(inflatedSize: count)
        var out: [UInt8] = [0x78, 0xDA] + gzip[10..<(gzip.count - 8)]
        append32((count % 65521) << 16 | 1, to: &out)  // Adler-32 of zeros: a = 1, b = count
        return out
    }

    /// The font with its character map replaced by one format 12 subtable (Windows, full
    /// Unicode) mapping the characters of each range to consecutive glyphs, the n-th range's
    /// from glyph 1 + n (wrapping before the font's glyph count).
    static func replacingCharacterMap(of sfnt: [UInt8], with ranges: [ClosedRange<UInt32>]) -> [UInt8] {
        let glyphCount = read16(tables(of: sfnt).first { $0.tag == "maxp" }!.bytes, 4)
        return replacingCharacterMap(
            of: sfnt, withGroups: ranges.enumerated().map { ($1, 1 + $0 % (glyphCount - 1 - Int($1.upperBound - $1.lowerBound))) })
    }

    /// The font with its character map replaced by one format 12 subtable of these groups: each
    /// range's characters to consecutive glyphs from its first.
    static func replacingCharacterMap(of sfnt: [UInt8], withGroups groups: [(ClosedRange<UInt32>, Int)]) -> [UInt8] {
        var subtable: [UInt8] = []
        append16(12, to: &subtable)
        append16(0, to: &subtable)
        append32(16 + 12 * groups.count, to: &subtable)
        append32(0, to: &subtable)
        append32(groups.count, to: &subtable)
        for (range, glyph) in groups {
            append32(Int(range.lowerBound), to: &subtable)
            append32(Int(range.upperBound), to: &subtable)
            append32(glyph, to: &subtable)
        }
        return replacingCharacterMap(of: sfnt, with: subtable, encoding: 10)
    }

    /// The font with its character map replaced by one format 4 subtable (Windows, BMP) of these
    /// segments: each range's characters to consecutive glyphs from its first, by idDelta (so a
    /// glyph past the font's last, or 0, can be named).
    static func replacingCharacterMap(of sfnt: [UInt8], withSegments segments: [(ClosedRange<UInt16>, Int)]) -> [UInt8] {
        let all = segments + [(0xFFFF...0xFFFF, 0)]
        var subtable: [UInt8] = []
        append16(4, to: &subtable)
        append16(16 + 8 * all.count, to: &subtable)
        append16(0, to: &subtable)
        append16(2 * all.count, to: &subtable)
        subtable += [0, 0, 0, 0, 0, 0]  // search fields: not read
        for (range, _) in all { append16(Int(range.upperBound), to: &subtable) }
        append16(0, to: &subtable)
        for (range, _) in all { append16(Int(range.lowerBound), to: &subtable) }
        for (range, glyph) in all { append16((glyph - Int(range.lowerBound)) & 0xFFFF, to: &subtable) }
        for _ in all { append16(0, to: &subtable) }
        return replacingCharacterMap(of: sfnt, with: subtable, encoding: 1)
    }

    private static func replacingCharacterMap(of sfnt: [UInt8], with subtable: [UInt8], encoding: Int) -> [UInt8] {
        var tables = tables(of: sfnt)
        var cmap: [UInt8] = []
        append16(0, to: &cmap)
        append16(1, to: &cmap)
        append16(3, to: &cmap)
        append16(encoding, to: &cmap)
        append32(12, to: &cmap)
        cmap += subtable
        tables.removeAll { $0.tag == "cmap" }
        tables.append(Table(tag: "cmap", bytes: cmap))
        return Self.sfnt(tables)
    }
}
