import CFontTools
import CZlib
import Foundation

/// Seeds of the font targets: the samples' fonts and Debian's (Font Awesome 4.7 in TrueType,
/// CFF OpenType, WOFF and WOFF2; DejaVu; MathJax's CFF fonts), cut by HarfBuzz's subsetter to a
/// few characters each so an input runs in milliseconds, then as WOFF and WOFF2 too, and the
/// hostile shapes the tests know (a table that inflates past the limit, a declared size past
/// it, a collection, a cut font).
extension SeedSources {
    /// Debian's fonts the seeds use (`Tools/setup.sh` installs their packages).
    static let debianFonts = [
        "/usr/share/fonts-font-awesome/fonts/fontawesome-webfont.ttf", "/usr/share/fonts-font-awesome/fonts/fontawesome-webfont.woff",
        "/usr/share/fonts-font-awesome/fonts/fontawesome-webfont.woff2", "/usr/share/fonts/opentype/font-awesome/FontAwesome.otf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
        "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", "/usr/share/fonts/opentype/mathjax/MathJax_Main-Regular.otf",
        "/usr/share/fonts/opentype/mathjax/MathJax_Size1-Regular.otf", "/usr/share/fonts/opentype/mathjax/MathJax_Fraktur-Bold.otf",
    ]

    /// Every font file of the samples and of ``debianFonts``, whole.
    static func fontFiles() throws -> [[UInt8]] {
        var fonts: [[UInt8]] = []
        for folder in try sampleFolders() {
            for file in files(in: folder) where ["ttf", "otf", "woff", "woff2"].contains((file as NSString).pathExtension) {
                fonts.append(try read(folder + "/" + file))
            }
        }
        for path in debianFonts {
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw SeedError("\(path) is missing: install fonts-font-awesome, fonts-dejavu-core and fonts-mathjax (bash Tools/setup.sh)")
            }
            fonts.append(try read(path))
        }
        return fonts
    }

    /// Small sfnt fonts: each font subset to a phrase, to digits and signs, and to its first 24
    /// characters (icon and math fonts map few of the others), all layout features kept in one.
    static func smallFonts() throws -> [[UInt8]] {
        var result: [[UInt8]] = []
        for file in try fontFiles() {
            let decoded = file.withUnsafeBytes { FontCalls.sfnt($0) }
            guard decoded.ok, let characters = FontCalls.characters(decoded.bytes) else { continue }
            let sets: [[ClosedRange<UInt32>]] = [
                "Plan a week of meals".unicodeScalars.map { $0.value...$0.value },
                "0123456789$.,%-→".unicodeScalars.map { $0.value...$0.value },
                Array(characters.lazy.flatMap { $0 }.prefix(24).map { $0...$0 }),
            ]
            for (index, set) in sets.enumerated() {
                let subset = FontCalls.subset(decoded.bytes, to: set, allFeatures: index == 0)
                if subset.ok, subset.bytes.count <= 64 << 10, FontCalls.check(subset.bytes) == LARDER_FONT_OK { result.append(subset.bytes) }
            }
            if decoded.bytes.count <= 64 << 10 { result.append(decoded.bytes) }
        }
        guard result.count >= 10 else { throw SeedError("only \(result.count) small fonts could be made") }
        return result
    }

    /// A WOFF 1.0 file of an sfnt's tables, each zlib-compressed when that is smaller.
    static func woff(of sfnt: [UInt8]) -> [UInt8] {
        guard let tables = FontCalls.tables(sfnt) else { return [] }
        return woff(tables.sorted { $0.key < $1.key }.map { tag, table in
            var bound = compressBound(uLong(table.count))
            var compressed = [UInt8](repeating: 0, count: Int(bound))
            let status = table.withUnsafeBufferPointer { source in compress2(&compressed, &bound, source.baseAddress, uLong(source.count), 9) }
            let stored = status == Z_OK && Int(bound) < table.count ? Array(compressed.prefix(Int(bound))) : Array(table)
            return (tag, stored, table.count)
        }, flavor: UInt32(sfnt[0]) << 24 | UInt32(sfnt[1]) << 16 | UInt32(sfnt[2]) << 8 | UInt32(sfnt[3]))
    }

    /// A WOFF 1.0 file of these tables (tag, stored bytes, length inflated).
    static func woff(_ tables: [(UInt32, [UInt8], Int)], flavor: UInt32) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        let start = 44 + 20 * tables.count
        var directory: [UInt8] = []
        var data: [UInt8] = []
        for (tag, stored, length) in tables {
            directory += be32(Int(tag)) + be32(start + data.count) + be32(stored.count) + be32(length) + be32(0)
            data += stored + [UInt8](repeating: 0, count: (4 - stored.count % 4) % 4)
        }
        let sfntSize = 12 + 16 * tables.count + tables.reduce(0) { $0 + ($1.2 + 3) / 4 * 4 }
        let header = Array("wOFF".utf8) + be32(Int(flavor)) + be32(start + data.count) + [UInt8(tables.count >> 8), UInt8(tables.count & 0xFF), 0, 0]
            + be32(sfntSize) + [0, 1, 0, 0] + [UInt8](repeating: 0, count: 20)
        return header + directory + data
    }

    /// The decode target's seeds: the small fonts as sfnt, WOFF and WOFF2, the whole WOFF and
    /// WOFF2 files, and hostile shapes.
    static func fontsToDecode() throws -> [[UInt8]] {
        let small = try smallFonts()
        var seeds = small
        for (index, sfnt) in small.enumerated() {
            seeds.append(woff(of: sfnt))
            if index % 2 == 0 {
                let encoded = FontCalls.woff2(sfnt, quality: 9)
                if encoded.ok { seeds.append(encoded.bytes) }
            }
        }
        seeds += try fontFiles().filter { $0.starts(with: Array("wOF".utf8)) && $0.count <= 128 << 10 }
        // A table of 40 MiB of zeros (40 kB of zlib); a WOFF2 declaring 40 MiB; a collection; a cut font.
        if let first = small.first, let tables = FontCalls.tables(first) {
            var zeros = [UInt8](repeating: 0, count: 40 << 20)
            var bound = compressBound(uLong(zeros.count))
            var compressed = [UInt8](repeating: 0, count: Int(bound))
            if compress2(&compressed, &bound, &zeros, uLong(zeros.count), 9) == Z_OK {
                let listed = tables.sorted { $0.key < $1.key }.map { ($0.key, Array($0.value), $0.value.count) }
                seeds.append(woff(listed + [(FontCalls.tag("zero"), Array(compressed.prefix(Int(bound))), zeros.count)], flavor: 0x0001_0000))
            }
            seeds.append(Array("ttcf".utf8) + [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 16] + first)
            seeds.append(Array(first.prefix(first.count / 2)))
        }
        if var woff2 = seeds.first(where: { $0.starts(with: Array("wOF2".utf8)) }) {
            woff2.replaceSubrange(16..<20, with: [0x02, 0x80, 0, 0])
            seeds.append(woff2)
        }
        return seeds
    }

    /// The encode and subset targets' seeds: the small sfnt fonts.
    static func fontsToEncode() throws -> [[UInt8]] { try smallFonts() }
}
