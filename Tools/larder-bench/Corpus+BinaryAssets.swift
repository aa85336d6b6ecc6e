import Foundation
import Glibc

extension Corpus {
    static func pngChunk(_ buffer: inout [UInt8], _ type: String, _ data: [UInt8]) {
        be32(&buffer, UInt32(data.count))
        let start = buffer.count
        buffer.append(contentsOf: type.utf8)
        buffer.append(contentsOf: data)
        be32(&buffer, crc32(buffer, from: start, to: buffer.count))
    }

    /// A structurally valid PNG (signature, IHDR, sRGB, pHYs, IDAT..., IEND with correct CRCs)
    /// whose IDAT payload is high-entropy, like real deflate output. Exactly `size` bytes.
    static func makePNG(size requested: Int, width: Int, height: Int, random: inout RNG) -> [UInt8] {
        let size = max(requested, 120)
        var buffer: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        buffer.reserveCapacity(size)
        var ihdr: [UInt8] = []
        be32(&ihdr, UInt32(width))
        be32(&ihdr, UInt32(height))
        ihdr += [8, random.chance(0.7) ? 6 : 2, 0, 0, 0]
        pngChunk(&buffer, "IHDR", ihdr)
        pngChunk(&buffer, "sRGB", [0])
        var phys: [UInt8] = []
        be32(&phys, 2835)
        be32(&phys, 2835)
        phys.append(1)
        pngChunk(&buffer, "pHYs", phys)
        let idatSpace = size - buffer.count - 12
        let chunks = max(1, idatSpace / (8192 + 12))
        let payload = idatSpace - 12 * chunks
        let base = payload / chunks
        for c in 0..<chunks {
            let len = c == chunks - 1 ? payload - base * (chunks - 1) : base
            be32(&buffer, UInt32(len))
            let typeStart = buffer.count
            buffer.append(contentsOf: "IDAT".utf8)
            let dataStart = buffer.count
            appendRandom(&buffer, len, &random)
            if c == 0 && len >= 2 {
                buffer[dataStart] = 0x78
                buffer[dataStart + 1] = 0xDA
            }
            be32(&buffer, crc32(buffer, from: typeStart, to: buffer.count))
        }
        pngChunk(&buffer, "IEND", [])
        return buffer
    }

    static let jpegLuma: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    static let jpegChroma: [Int] = (0..<64).map { i in
        let r = i / 8, c = i % 8
        let head: [[Int]] = [[17, 18, 24, 47], [18, 21, 26, 66], [24, 26, 56, 99], [47, 66, 99, 99]]
        return r < 4 && c < 4 ? head[r][c] : 99
    }
    static let jpegACValues: [UInt8] = {
        var values: [UInt8] = [0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21]
        for size in 1...10 {
            for run in 0...15 {
                let v = UInt8(run << 4 | size)
                if !values.contains(v) { values.append(v) }
            }
        }
        values.append(0xF0)
        return values
    }()

    /// A JPEG frame (SOI, APP0/JFIF, DQT, SOF0, DHT, SOS, entropy data with 0xFF stuffing, EOI)
    /// around high-entropy scan data. Exactly `size` bytes.
    static func makeJPEG(size requested: Int, width: Int, height: Int, random: inout RNG) -> [UInt8] {
        let size = max(requested, 1000)
        var buffer: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]
        buffer.reserveCapacity(size)
        buffer += Array("JFIF".utf8) + [0, 1, 1, 1, 0, 72, 0, 72, 0, 0]
        let quality = random.range(70, 92)
        let scale = 200 - 2 * quality
        for (id, table) in [jpegLuma, jpegChroma].enumerated() {
            buffer += [0xFF, 0xDB, 0x00, 0x43, UInt8(id)]
            for q in table { buffer.append(UInt8(max(1, min(255, (q * scale + 50) / 100)))) }
        }
        buffer += [0xFF, 0xC0, 0x00, 0x11, 0x08]
        be16(&buffer, height)
        be16(&buffer, width)
        buffer += [0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
        let dcLumaBits: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        let acLumaBits: [UInt8] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
        let dcChromaBits: [UInt8] = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
        let acChromaBits: [UInt8] = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77]
        let dcValues: [UInt8] = Array(0...11)
        let tables: [(UInt8, [UInt8], [UInt8])] = [
            (0x00, dcLumaBits, dcValues), (0x10, acLumaBits, jpegACValues),
            (0x01, dcChromaBits, dcValues), (0x11, acChromaBits, jpegACValues),
        ]
        for (cls, bits, values) in tables {
            buffer += [0xFF, 0xC4]
            be16(&buffer, 2 + 1 + 16 + values.count)
            buffer.append(cls)
            buffer += bits
            buffer += values
        }
        buffer += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00]
        let start = buffer.count
        let end = size - 2
        if end > start {
            buffer.append(contentsOf: repeatElement(0, count: end - start))
            buffer.withUnsafeMutableBufferPointer { buf in
                var pos = start
                while pos < end {
                    var v = random.next()
                    for _ in 0..<8 where pos < end {
                        let byte = UInt8(truncatingIfNeeded: v)
                        v >>= 8
                        if byte == 0xFF {
                            if pos + 1 < end {
                                buf[pos] = 0xFF
                                buf[pos + 1] = 0x00
                                pos += 2
                            } else {
                                buf[pos] = 0xD5
                                pos += 1
                            }
                        } else {
                            buf[pos] = byte
                            pos += 1
                        }
                    }
                }
            }
        }
        buffer += [0xFF, 0xD9]
        return buffer
    }

    /// Fallback when no TrueType files are installed: an sfnt file with a valid table directory
    /// (OS/2, cmap, glyf, head, hhea, hmtx, loca, maxp, name, post) and glyph-like outline data.
    static func makeSyntheticFont(size requested: Int, family: String, random: inout RNG) -> [UInt8] {
        let size = max(requested, 4096)
        let tags = ["OS/2", "cmap", "glyf", "head", "hhea", "hmtx", "loca", "maxp", "name", "post"]
        var numGlyphs = max(16, min(3000, size / 180))
        var tables = [String: [UInt8]]()

        var os2: [UInt8] = []
        be16(&os2, 4); be16(&os2, 1100); be16(&os2, 400); be16(&os2, 5); be16(&os2, 0)
        while os2.count < 96 { be16(&os2, random.chance(0.5) ? 0 : random.range(0, 2048)) }
        tables["OS/2"] = os2

        var cmap: [UInt8] = []
        be16(&cmap, 0); be16(&cmap, 1); be16(&cmap, 3); be16(&cmap, 1); be32(&cmap, 12)
        let segments = 2
        be16(&cmap, 4); be16(&cmap, 16 + 8 * segments); be16(&cmap, 0)
        be16(&cmap, 2 * segments); be16(&cmap, 4); be16(&cmap, 1); be16(&cmap, 0)
        be16(&cmap, 0x7E); be16(&cmap, 0xFFFF); be16(&cmap, 0)
        be16(&cmap, 0x20); be16(&cmap, 0xFFFF)
        be16(&cmap, 0xFFE3); be16(&cmap, 1)
        be16(&cmap, 0); be16(&cmap, 0)
        tables["cmap"] = cmap

        var head: [UInt8] = []
        be32(&head, 0x0001_0000); be32(&head, 0x0001_0000); be32(&head, 0); be32(&head, 0x5F0F_3CF5)
        be16(&head, 0x000B); be16(&head, 2048)
        for _ in 0..<4 { be32(&head, 0xD5A1_0000 &+ UInt32(random.below(1 << 20))) }
        be16(&head, 0xF800); be16(&head, 0xF900); be16(&head, 2400); be16(&head, 2200)
        be16(&head, 0); be16(&head, 8); be16(&head, 2); be16(&head, 1); be16(&head, 0)
        tables["head"] = head

        var hhea: [UInt8] = []
        be32(&hhea, 0x0001_0000); be16(&hhea, 1900); be16(&hhea, 0xFB00); be16(&hhea, 0)
        be16(&hhea, 2400); be16(&hhea, 0xF800); be16(&hhea, 0xF900); be16(&hhea, 2200)
        be16(&hhea, 1); be16(&hhea, 0); be16(&hhea, 0)
        for _ in 0..<4 { be16(&hhea, 0) }
        be16(&hhea, 0)

        var maxp: [UInt8] = []
        be32(&maxp, 0x0001_0000)
        var name: [UInt8] = []
        let strings = [family, "Regular", family + " Regular", "Version 1.000"]
        be16(&name, 0); be16(&name, strings.count); be16(&name, 6 + 12 * strings.count)
        var storage: [UInt8] = []
        for (i, text) in strings.enumerated() {
            let utf16 = Array(text.utf16)
            be16(&name, 3); be16(&name, 1); be16(&name, 0x409); be16(&name, i + 1)
            be16(&name, utf16.count * 2); be16(&name, storage.count)
            for unit in utf16 { be16(&storage, Int(unit)) }
        }
        name += storage
        tables["name"] = name
        var post: [UInt8] = []
        be32(&post, 0x0003_0000); be32(&post, 0); be16(&post, 0xFF9C); be16(&post, 50)
        while post.count < 32 { post.append(0) }
        tables["post"] = post

        func padded(_ n: Int) -> Int { (n + 3) & ~3 }
        var fixedBytes = 12 + 16 * tags.count
        for key in ["OS/2", "cmap", "head", "name", "post"] { fixedBytes += padded(tables[key]!.count) }
        fixedBytes += padded(36) + padded(32)
        var glyfLength = 0
        while true {
            glyfLength = size - fixedBytes - padded(4 * numGlyphs) - padded(4 * (numGlyphs + 1))
            if glyfLength >= numGlyphs * 24 || numGlyphs <= 2 { break }
            numGlyphs /= 2
        }
        be16(&hhea, numGlyphs)
        tables["hhea"] = hhea
        be16(&maxp, numGlyphs)
        for _ in 0..<13 { be16(&maxp, random.range(0, 64)) }
        tables["maxp"] = maxp
        var hmtx: [UInt8] = []
        for _ in 0..<numGlyphs {
            be16(&hmtx, 900 + 50 * random.below(16))
            be16(&hmtx, 40 + 4 * random.below(40))
        }
        tables["hmtx"] = hmtx

        var glyf: [UInt8] = []
        glyf.reserveCapacity(glyfLength)
        var loca: [UInt8] = []
        let perGlyph = max(0, glyfLength) / numGlyphs
        let flagSet: [UInt8] = [0x01, 0x33, 0x37, 0x21, 0x11, 0x31, 0x07, 0x27, 0x35, 0x03]
        let instructions: [UInt8] = [0xB0, 0xB1, 0x2C, 0x4B, 0x50, 0x58, 0x2F, 0x1B, 0x21, 0x59, 0x00, 0x01, 0x3F]
        for g in 0..<numGlyphs {
            be32(&loca, UInt32(glyf.count))
            let end = g == numGlyphs - 1 ? glyfLength : glyf.count + perGlyph
            let contours = random.range(1, 4)
            be16(&glyf, contours)
            for _ in 0..<4 { be16(&glyf, 20 * random.below(80)) }
            var point = 0
            for _ in 0..<contours {
                point += random.range(3, 24)
                be16(&glyf, point)
            }
            let hinting = random.range(0, 24)
            be16(&glyf, hinting)
            for _ in 0..<hinting { glyf.append(instructions[random.skewed(instructions.count)]) }
            while glyf.count < end {
                let r = random.below(20)
                if r < 11 {
                    glyf.append(flagSet[random.skewed(flagSet.count)])
                } else if r < 19 {
                    glyf.append(UInt8(random.below(12) + random.below(12)))
                } else {
                    glyf.append(UInt8(truncatingIfNeeded: random.next()))
                }
            }
            if glyf.count > end { glyf.removeLast(glyf.count - end) }
        }
        be32(&loca, UInt32(glyf.count))
        tables["loca"] = loca
        tables["glyf"] = glyf

        // Table data: everything except glyf first (4-byte aligned), glyf last so the size is exact.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(size)
        be32(&buffer, 0x0001_0000)
        be16(&buffer, tags.count); be16(&buffer, 128); be16(&buffer, 3); be16(&buffer, 16 * tags.count - 128)
        var offset = 12 + 16 * tags.count
        var offsets = [String: Int]()
        for tag in tags where tag != "glyf" {
            offsets[tag] = offset
            offset += padded(tables[tag]!.count)
        }
        offsets["glyf"] = offset
        for tag in tags {
            let data = tables[tag]!
            var sum: UInt32 = 0
            var i = 0
            while i < data.count {
                var word: UInt32 = 0
                for j in 0..<4 { word = word << 8 | UInt32(i + j < data.count ? data[i + j] : 0) }
                sum &+= word
                i += 4
            }
            buffer.append(contentsOf: tag.utf8)
            be32(&buffer, sum)
            be32(&buffer, UInt32(offsets[tag]!))
            be32(&buffer, UInt32(data.count))
        }
        for tag in tags where tag != "glyf" {
            let data = tables[tag]!
            buffer += data
            buffer.append(contentsOf: repeatElement(0, count: padded(data.count) - data.count))
        }
        buffer += glyf
        return buffer
    }

    /// Installed TrueType fonts, sorted by path, loaded on first use.
    final class FontLibrary {
        struct Entry {
            let path: String
            let size: Int
            let fileName: String
            let family: String
            let weight: Int
            let italic: Bool
        }
        let entries: [Entry]
        /// Entry indices grouped by family, families sorted by name.
        let families: [[Int]]
        let smallestSize: Int
        let smallestFamily: Int
        private var cache: [Int: [UInt8]] = [:]

        init(directory: String) {
            var paths: [String] = []
            if let walker = FileManager.default.enumerator(atPath: directory) {
                while let relative = walker.nextObject() as? String {
                    if relative.lowercased().hasSuffix(".ttf") { paths.append(directory + "/" + relative) }
                }
            }
            paths.sort()
            var entries: [Entry] = []
            for path in paths {
                var info = stat()
                guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 64,
                    access(path, R_OK) == 0
                else { continue }
                let base = String(path.split(separator: "/").last!.dropLast(4))
                let parts = base.split(separator: "-", maxSplits: 1).map(String.init)
                let style = parts.count > 1 ? parts[1].lowercased() : "regular"
                let weight: Int
                if style.contains("hairline") || style.contains("thin") {
                    weight = 100
                } else if style.contains("extralight") {
                    weight = 200
                } else if style.contains("light") {
                    weight = 300
                } else if style.contains("medium") {
                    weight = 500
                } else if style.contains("semibold") {
                    weight = 600
                } else if style.contains("extrabold") || style.contains("heavy") {
                    weight = 800
                } else if style.contains("black") {
                    weight = 900
                } else if style.contains("bold") {
                    weight = 700
                } else {
                    weight = 400
                }
                var fileName = ""
                for ch in base.lowercased().unicodeScalars {
                    let ok = (ch >= "a" && ch <= "z") || (ch >= "0" && ch <= "9") || ch == "-"
                    fileName.unicodeScalars.append(ok ? ch : "-")
                }
                entries.append(
                    Entry(
                        path: path, size: Int(info.st_size), fileName: fileName + ".ttf",
                        family: FontLibrary.displayName(parts[0]), weight: weight,
                        italic: style.contains("italic") || style.contains("oblique")))
            }
            self.entries = entries
            var groups: [String: [Int]] = [:]
            for (i, e) in entries.enumerated() { groups[e.family, default: []].append(i) }
            families = groups.keys.sorted().map { groups[$0]! }
            var smallest = Int.max, smallestFamily = 0
            for (f, members) in families.enumerated() {
                for i in members where entries[i].size < smallest {
                    smallest = entries[i].size
                    smallestFamily = f
                }
            }
            smallestSize = smallest
            self.smallestFamily = smallestFamily
        }

        /// "OpenSans" -> "Open Sans", "DejaVuSansMono" -> "DejaVu Sans Mono".
        static func displayName(_ key: String) -> String {
            var out = ""
            var previousLower = false
            for ch in key {
                if ch.isUppercase && previousLower { out.append(" ") }
                out.append(ch)
                previousLower = ch.isLowercase || ch.isNumber
            }
            return out.replacingOccurrences(of: "Deja Vu", with: "DejaVu")
                .replacingOccurrences(of: "Te XGyre", with: "TeX Gyre")
        }

        func bytes(of index: Int) throws -> [UInt8] {
            if let cached = cache[index] { return cached }
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: entries[index].path))
            } catch {
                throw CorpusError("cannot read font \(entries[index].path): \(error)")
            }
            let bytes = [UInt8](data)
            cache[index] = bytes
            return bytes
        }
    }
}
