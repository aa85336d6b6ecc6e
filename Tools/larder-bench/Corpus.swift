import Foundation
import Glibc

/// A generated corpus of web assets for `larder-bench pack`.
struct CorpusSummary: Sendable {
    var root: URL
    var fileCount: Int
    var totalBytes: Int
    var bytesByKind: [String: Int]   // "html", "css", "js", "json", "svg", "font", "image"
}

/// Why a corpus could not be generated.
struct CorpusError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { "corpus generation failed: \(message)" }
}

enum Corpus {
    /// Writes a deterministic corpus of mixed web assets of about `totalBytes` into `root`
    /// (created if missing; must be empty or absent). Same seed -> byte-identical files.
    static func generate(at root: URL, totalBytes: Int, seed: UInt64 = 42) throws -> CorpusSummary {
        let rootPath = root.standardizedFileURL.path
        try prepareRoot(rootPath)
        var sink = Sink(root: rootPath)
        let goal = max(0, totalBytes)
        if goal > 0 {
            let fonts = FontLibrary(directory: fontDirectory)
            var sizing = RNG(seed: seed ^ 0xC0FF_EE00_D15E_A5E5)
            var fontTarget = 0.0
            var fontWritten = 0
            var folder = 0
            while sink.total < goal {
                let remaining = goal - sink.total
                if folder > 0 && remaining < 16 * 1024 { break }
                folder += 1
                let bigVendor = sizing.chance(0.1)
                var budget = bigVendor
                    ? sizing.range(2_600_000, 3_200_000)
                    : sizing.range(1_000_000, 2_600_000)
                if budget >= remaining || remaining - budget < 600_000 { budget = remaining }
                fontTarget += fontShare * Double(budget)
                var gen = FolderGen(
                    flow: folderName(folder),
                    seed: seed ^ (UInt64(folder) &* 0xD1B5_4A32_D192_ED03))
                fontWritten += try gen.build(
                    budget: budget, bigVendor: bigVendor && budget >= 2_000_000, fonts: fonts,
                    fontAllowance: fontTarget - Double(fontWritten), sink: &sink)
            }
        }
        var byKind: [String: Int] = [:]
        for kind in Kind.allCases { byKind[kind.key] = sink.bytesByKind[kind.rawValue] }
        return CorpusSummary(
            root: root, fileCount: sink.fileCount, totalBytes: sink.total, bytesByKind: byKind)
    }
}

// MARK: - Plumbing

extension Corpus {
    fileprivate static let fontDirectory = "/usr/share/fonts/truetype"
    fileprivate static let fontShare = 0.15

    fileprivate enum Kind: Int, CaseIterable {
        case html, css, js, json, svg, font, image
        var key: String {
            switch self {
            case .html: "html"
            case .css: "css"
            case .js: "js"
            case .json: "json"
            case .svg: "svg"
            case .font: "font"
            case .image: "image"
            }
        }
    }

    fileprivate static func folderName(_ n: Int) -> String {
        var digits = String(n)
        while digits.count < 4 { digits = "0" + digits }
        return "flow-" + digits
    }

    fileprivate static func posixError() -> String {
        String(cString: strerror(errno))
    }

    fileprivate static func prepareRoot(_ path: String) throws {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            guard isDir.boolValue else {
                throw CorpusError("\(path) exists and is not a directory")
            }
            let items: [String]
            do {
                items = try fm.contentsOfDirectory(atPath: path)
            } catch {
                throw CorpusError("cannot list \(path): \(error)")
            }
            if !items.isEmpty {
                throw CorpusError(
                    "\(path) is not empty (\(items.count) entries); refusing to write a corpus into it")
            }
        } else {
            do {
                try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw CorpusError("cannot create directory \(path): \(error)")
            }
        }
    }

    /// Writes files below the root and keeps the tallies.
    fileprivate struct Sink {
        let root: String
        var fileCount = 0
        var total = 0
        var bytesByKind = [Int](repeating: 0, count: Kind.allCases.count)

        init(root: String) { self.root = root }

        func makeDirectory(_ relative: String) throws {
            let path = root + "/" + relative
            if mkdir(path, 0o755) != 0 {
                throw CorpusError("cannot create directory \(path): \(Corpus.posixError())")
            }
        }

        mutating func write(_ relative: String, _ kind: Kind, _ bytes: [UInt8]) throws {
            let path = root + "/" + relative
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 {
                throw CorpusError("cannot create \(path): \(Corpus.posixError())")
            }
            var failure: String?
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = Corpus.posixError()
                        return
                    }
                    if n == 0 {
                        failure = "short write (0 bytes written)"
                        return
                    }
                    offset += n
                }
            }
            if close(fd) != 0 && failure == nil { failure = Corpus.posixError() }
            if let failure {
                throw CorpusError("write to \(path) failed: \(failure)")
            }
            fileCount += 1
            total += bytes.count
            bytesByKind[kind.rawValue] += bytes.count
        }
    }

    /// SplitMix64: small, fast, and fully specified here so output never depends on the toolchain.
    fileprivate struct RNG {
        var state: UInt64
        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        /// Uniform in 0..<n.
        mutating func below(_ n: Int) -> Int {
            precondition(n > 0)
            return Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(n)).high)
        }
        /// Uniform in lo...hi.
        mutating func range(_ lo: Int, _ hi: Int) -> Int { hi <= lo ? lo : lo + below(hi - lo + 1) }
        mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
        mutating func chance(_ p: Double) -> Bool { unit() < p }
        /// Index in 0..<n, strongly favouring small indices (Zipf-like word frequencies).
        mutating func skewed(_ n: Int) -> Int {
            let u = unit()
            return min(n - 1, Int(Double(n) * u * u))
        }
        mutating func logUniform(_ lo: Int, _ hi: Int) -> Int {
            if hi <= lo { return lo }
            let a = log(Double(lo)), b = log(Double(hi))
            return Int(exp(a + (b - a) * unit()))
        }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
        mutating func shuffle<T>(_ items: inout [T]) {
            guard items.count > 1 else { return }
            for i in stride(from: items.count - 1, to: 0, by: -1) {
                items.swapAt(i, below(i + 1))
            }
        }
        mutating func sample<T>(_ items: [T], _ k: Int) -> [T] {
            var copy = items
            shuffle(&copy)
            return Array(copy.prefix(k))
        }
        mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
            let n = buffer.count
            var i = 0
            while i + 8 <= n {
                buffer.storeBytes(of: next().littleEndian, toByteOffset: i, as: UInt64.self)
                i += 8
            }
            if i < n {
                var v = next()
                while i < n {
                    buffer[i] = UInt8(truncatingIfNeeded: v)
                    v >>= 8
                    i += 1
                }
            }
        }
    }

    /// Growable byte buffer with the few formatting helpers the generators need.
    fileprivate struct Out {
        var b: [UInt8] = []
        init(capacity: Int) { b.reserveCapacity(capacity) }
        var count: Int { b.count }

        mutating func s(_ text: String) { b.append(contentsOf: text.utf8) }
        mutating func w(_ bytes: [UInt8]) { b.append(contentsOf: bytes) }
        mutating func byte(_ c: UInt8) { b.append(c) }
        mutating func nl() { b.append(10) }
        mutating func indent(_ level: Int) {
            for _ in 0..<(2 * level) { b.append(32) }
        }
        /// `word` with its first letter upper-cased.
        mutating func capitalized(_ word: [UInt8]) {
            guard let first = word.first else { return }
            b.append(first >= 97 && first <= 122 ? first - 32 : first)
            b.append(contentsOf: word[1...])
        }
        mutating func int(_ value: Int) {
            var v = value
            if v < 0 {
                b.append(45)
                v = -v
            }
            if v < 10 {
                b.append(48 + UInt8(v))
                return
            }
            var div = 1
            while div <= v / 10 { div *= 10 }
            while div > 0 {
                b.append(48 + UInt8(v / div))
                v %= div
                div /= 10
            }
        }
        /// Prints `scaled / 10^places`. `compact` trims trailing zeros and a leading "0." like SVGO.
        mutating func fixed(_ scaled: Int, places: Int, compact: Bool = false) {
            var v = scaled
            if v < 0 {
                b.append(45)
                v = -v
            }
            var p = 1
            for _ in 0..<places { p *= 10 }
            let whole = v / p
            var frac = v % p
            var digits = places
            if compact {
                while digits > 0 && frac % 10 == 0 {
                    frac /= 10
                    digits -= 1
                }
            }
            if !(compact && whole == 0 && digits > 0) { int(whole) }
            if digits > 0 {
                b.append(46)
                var div = 1
                for _ in 1..<digits { div *= 10 }
                while div > 0 {
                    b.append(48 + UInt8(frac / div))
                    frac %= div
                    div /= 10
                }
            }
        }
        mutating func hex(_ value: UInt64, digits: Int) {
            let table: [UInt8] = Array("0123456789abcdef".utf8)
            var shift = (digits - 1) * 4
            while shift >= 0 {
                b.append(table[Int((value >> UInt64(shift)) & 0xF)])
                shift -= 4
            }
        }
    }

    fileprivate static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    fileprivate static func crc32(_ bytes: [UInt8], from start: Int, to end: Int) -> UInt32 {
        let table = crcTable
        var c: UInt32 = 0xFFFF_FFFF
        bytes.withUnsafeBufferPointer { buf in
            table.withUnsafeBufferPointer { t in
                for i in start..<end {
                    c = t[Int((c ^ UInt32(buf[i])) & 0xFF)] ^ (c >> 8)
                }
            }
        }
        return c ^ 0xFFFF_FFFF
    }

    fileprivate static func be16(_ o: inout [UInt8], _ v: Int) {
        o.append(UInt8(truncatingIfNeeded: v >> 8))
        o.append(UInt8(truncatingIfNeeded: v))
    }

    fileprivate static func be32(_ o: inout [UInt8], _ v: UInt32) {
        o.append(UInt8(truncatingIfNeeded: v >> 24))
        o.append(UInt8(truncatingIfNeeded: v >> 16))
        o.append(UInt8(truncatingIfNeeded: v >> 8))
        o.append(UInt8(truncatingIfNeeded: v))
    }

    /// Appends `count` PRNG bytes to `o`.
    fileprivate static func appendRandom(_ o: inout [UInt8], _ count: Int, _ rng: inout RNG) {
        guard count > 0 else { return }
        let start = o.count
        o.append(contentsOf: repeatElement(0, count: count))
        o.withUnsafeMutableBytes { raw in
            rng.fill(UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + count)]))
        }
    }
}

// MARK: - Binary assets

extension Corpus {
    /// Drops newlines and the spaces next to `{ } : ; , >`, like a CSS minifier.
    fileprivate static func minifyCSS(_ input: [UInt8]) -> [UInt8] {
        func tight(_ c: UInt8) -> Bool { c == 123 || c == 125 || c == 58 || c == 59 || c == 44 || c == 62 }
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var i = 0
        while i < input.count {
            let c = input[i]
            if c == 10 || c == 32 {
                var j = i
                while j < input.count && (input[j] == 10 || input[j] == 32) { j += 1 }
                let previous = out.last ?? 10
                let next = j < input.count ? input[j] : 10
                if !(tight(previous) || tight(next) || previous == 10 || next == 10) {
                    out.append(32)
                }
                i = j
            } else {
                out.append(c)
                i += 1
            }
        }
        out.append(10)
        return out
    }
}

extension Corpus {
    fileprivate static func pngChunk(_ o: inout [UInt8], _ type: String, _ data: [UInt8]) {
        be32(&o, UInt32(data.count))
        let start = o.count
        o.append(contentsOf: type.utf8)
        o.append(contentsOf: data)
        be32(&o, crc32(o, from: start, to: o.count))
    }

    /// A structurally valid PNG (signature, IHDR, sRGB, pHYs, IDAT..., IEND with correct CRCs)
    /// whose IDAT payload is high-entropy, like real deflate output. Exactly `size` bytes.
    fileprivate static func makePNG(size requested: Int, width: Int, height: Int, rng: inout RNG) -> [UInt8] {
        let size = max(requested, 120)
        var o: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        o.reserveCapacity(size)
        var ihdr: [UInt8] = []
        be32(&ihdr, UInt32(width))
        be32(&ihdr, UInt32(height))
        ihdr += [8, rng.chance(0.7) ? 6 : 2, 0, 0, 0]
        pngChunk(&o, "IHDR", ihdr)
        pngChunk(&o, "sRGB", [0])
        var phys: [UInt8] = []
        be32(&phys, 2835)
        be32(&phys, 2835)
        phys.append(1)
        pngChunk(&o, "pHYs", phys)
        let idatSpace = size - o.count - 12
        let chunks = max(1, idatSpace / (8192 + 12))
        let payload = idatSpace - 12 * chunks
        let base = payload / chunks
        for c in 0..<chunks {
            let len = c == chunks - 1 ? payload - base * (chunks - 1) : base
            be32(&o, UInt32(len))
            let typeStart = o.count
            o.append(contentsOf: "IDAT".utf8)
            let dataStart = o.count
            appendRandom(&o, len, &rng)
            if c == 0 && len >= 2 {
                o[dataStart] = 0x78
                o[dataStart + 1] = 0xDA
            }
            be32(&o, crc32(o, from: typeStart, to: o.count))
        }
        pngChunk(&o, "IEND", [])
        return o
    }

    fileprivate static let jpegLuma: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    fileprivate static let jpegChroma: [Int] = (0..<64).map { i in
        let r = i / 8, c = i % 8
        let head: [[Int]] = [[17, 18, 24, 47], [18, 21, 26, 66], [24, 26, 56, 99], [47, 66, 99, 99]]
        return r < 4 && c < 4 ? head[r][c] : 99
    }
    fileprivate static let jpegACValues: [UInt8] = {
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
    fileprivate static func makeJPEG(size requested: Int, width: Int, height: Int, rng: inout RNG) -> [UInt8] {
        let size = max(requested, 1000)
        var o: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]
        o.reserveCapacity(size)
        o += Array("JFIF".utf8) + [0, 1, 1, 1, 0, 72, 0, 72, 0, 0]
        let quality = rng.range(70, 92)
        let scale = 200 - 2 * quality
        for (id, table) in [jpegLuma, jpegChroma].enumerated() {
            o += [0xFF, 0xDB, 0x00, 0x43, UInt8(id)]
            for q in table { o.append(UInt8(max(1, min(255, (q * scale + 50) / 100)))) }
        }
        o += [0xFF, 0xC0, 0x00, 0x11, 0x08]
        be16(&o, height)
        be16(&o, width)
        o += [0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]
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
            o += [0xFF, 0xC4]
            be16(&o, 2 + 1 + 16 + values.count)
            o.append(cls)
            o += bits
            o += values
        }
        o += [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00]
        let start = o.count
        let end = size - 2
        if end > start {
            o.append(contentsOf: repeatElement(0, count: end - start))
            o.withUnsafeMutableBufferPointer { buf in
                var pos = start
                while pos < end {
                    var v = rng.next()
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
        o += [0xFF, 0xD9]
        return o
    }

    /// Fallback when no TrueType files are installed: an sfnt file with a valid table directory
    /// (OS/2, cmap, glyf, head, hhea, hmtx, loca, maxp, name, post) and glyph-like outline data.
    fileprivate static func makeSyntheticFont(size requested: Int, family: String, rng: inout RNG) -> [UInt8] {
        let size = max(requested, 4096)
        let tags = ["OS/2", "cmap", "glyf", "head", "hhea", "hmtx", "loca", "maxp", "name", "post"]
        var numGlyphs = max(16, min(3000, size / 180))
        var tables = [String: [UInt8]]()

        var os2: [UInt8] = []
        be16(&os2, 4); be16(&os2, 1100); be16(&os2, 400); be16(&os2, 5); be16(&os2, 0)
        while os2.count < 96 { be16(&os2, rng.chance(0.5) ? 0 : rng.range(0, 2048)) }
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
        for _ in 0..<4 { be32(&head, 0xD5A1_0000 &+ UInt32(rng.below(1 << 20))) }
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
        for _ in 0..<13 { be16(&maxp, rng.range(0, 64)) }
        tables["maxp"] = maxp
        var hmtx: [UInt8] = []
        for _ in 0..<numGlyphs {
            be16(&hmtx, 900 + 50 * rng.below(16))
            be16(&hmtx, 40 + 4 * rng.below(40))
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
            let contours = rng.range(1, 4)
            be16(&glyf, contours)
            for _ in 0..<4 { be16(&glyf, 20 * rng.below(80)) }
            var point = 0
            for _ in 0..<contours {
                point += rng.range(3, 24)
                be16(&glyf, point)
            }
            let hinting = rng.range(0, 24)
            be16(&glyf, hinting)
            for _ in 0..<hinting { glyf.append(instructions[rng.skewed(instructions.count)]) }
            while glyf.count < end {
                let r = rng.below(20)
                if r < 11 {
                    glyf.append(flagSet[rng.skewed(flagSet.count)])
                } else if r < 19 {
                    glyf.append(UInt8(rng.below(12) + rng.below(12)))
                } else {
                    glyf.append(UInt8(truncatingIfNeeded: rng.next()))
                }
            }
            if glyf.count > end { glyf.removeLast(glyf.count - end) }
        }
        be32(&loca, UInt32(glyf.count))
        tables["loca"] = loca
        tables["glyf"] = glyf

        // Table data: everything except glyf first (4-byte aligned), glyf last so the size is exact.
        var o: [UInt8] = []
        o.reserveCapacity(size)
        be32(&o, 0x0001_0000)
        be16(&o, tags.count); be16(&o, 128); be16(&o, 3); be16(&o, 16 * tags.count - 128)
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
            o.append(contentsOf: tag.utf8)
            be32(&o, sum)
            be32(&o, UInt32(offsets[tag]!))
            be32(&o, UInt32(data.count))
        }
        for tag in tags where tag != "glyf" {
            let data = tables[tag]!
            o += data
            o.append(contentsOf: repeatElement(0, count: padded(data.count) - data.count))
        }
        o += glyf
        return o
    }

    /// Installed TrueType fonts, sorted by path, loaded on first use.
    fileprivate final class FontLibrary {
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

// MARK: - Vocabulary

extension Corpus {
    fileprivate enum Vocab {
        static func list(_ text: String) -> [[UInt8]] {
            text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { Array($0.utf8) }
        }
        static func strings(_ text: String) -> [String] {
            text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        }

        static let words = list("""
            your you the and to of a for with in on get start free trial premium plan unlock all features \
            access unlimited cancel anytime today now more best value save month year week join millions people \
            who already love app new every day progress goals track personal daily reminders insights smart help \
            reach faster better easy simple just minutes build habits that stick workout meal sleep focus learn \
            language lessons courses experts guided programs tailored based answers profile continue next back \
            skip restore purchase terms privacy policy subscription renews automatically unless cancelled least \
            hours before end current period payment charged account confirmation manage settings after billed \
            annually monthly weekly price only per off limited offer special discount welcome set up choose what \
            matters most how often do want are we our will can be this is it from by as at or no ads first \
            results see feel energy mind body health stress calm breathing meditation stories coaching community \
            support private secure cloud sync devices offline mode themes widgets reports charts analytics export \
            backup family sharing members included priority early exclusive content pro plus gold tier yearly \
            lifetime upgrade keep going almost there great choice ready journey begin ahead step quick questions \
            tailor experience recommend perfect fit level beginner intermediate advanced time goal weight fitness \
            routine plans recipes shopping list grocery nutrition calories water steps run walk yoga pilates \
            strength cardio stretch recovery rest mood journal gratitude notes tasks projects calendar schedule \
            teams work study exam practice words vocabulary grammar speaking listening reading writing native \
            speakers review spaced repetition flashcards streak badges rewards points challenge friends \
            leaderboard share invite bonus days extra months rated stars reviews trusted award winning featured \
            editors safe payments encrypted data never sold third parties anonymous usage statistics improve \
            service than over into their them they which when while without within about again also any around \
            because been being both each few here its less many much other over same some such those through \
            under until very way well where why would could should might must need feel sure thank thanks
            """)
        static let names = strings("""
            Anna Ben Chloe Daniel Emma Felix Grace Hugo Isla Jonas Kate Liam Maya Noah Olivia Paul Quinn Rosa \
            Sam Tara Umar Vera Will Xena Yusuf Zoe Lena Marco Nina Omar Priya Ravi Sofia Tom Elena Mateo
            """)
        static let blocks = strings("""
            app screen header footer hero card plan price badge button cta link icon media logo list feature \
            benefit review testimonial rating avatar progress step stepper slider carousel slide modal overlay \
            sheet toggle switch option choice answer question quiz input field label hint legal nav tab panel \
            grid row stack divider timer countdown banner toast tooltip chip tag highlight trial discount savings \
            compare table faq summary loader spinner paywall onboarding offer checkout layout section container
            """)
        static let elements = strings("""
            title subtitle text label value icon image price period badge button footer header body list item \
            caption note amount currency wrapper inner content action media heading description
            """)
        static let modifiers = strings("""
            primary secondary active selected disabled hidden visible large small compact dark light muted \
            accent outline ghost rounded centered sticky featured popular recommended expanded collapsed loading \
            success warning
            """)
        static let screens = strings("""
            welcome onboarding goals quiz profile paywall plans offer trial checkout success terms privacy faq \
            reviews upsell
            """)
        static let extraCSS = strings("theme.css components.css animations.css paywall.css onboarding.css")
        static let extraJS = strings("analytics.js paywall.js onboarding.js i18n.js polyfills.js experiments.js")
        static let extraJSON = strings(
            "plans.json products.json experiments.json events.json features.json reviews.json")
        static let svgNames = strings("""
            icon-close.svg icon-check.svg icon-star.svg icon-lock.svg icon-arrow-right.svg icon-crown.svg \
            icon-gift.svg icon-shield.svg icon-heart.svg icon-bolt.svg icon-sparkle.svg icon-info.svg \
            illustration-welcome.svg illustration-goals.svg badge-best-value.svg pattern-dots.svg
            """)
        static let pngBases = strings("icon badge illustration screenshot sticker feature mockup frame")
        static let jpgBases = strings("photo bg avatar testimonial banner cover lifestyle")
        static let colors = strings("""
            #ffffff #000000 #111827 #1f2937 #374151 #6b7280 #9ca3af #d1d5db #e5e7eb #f3f4f6 #f9fafb \
            #2563eb #3b82f6 #60a5fa #1d4ed8 #7c3aed #8b5cf6 #a78bfa #db2777 #ec4899 #f472b6 #dc2626 \
            #ef4444 #f97316 #fb923c #f59e0b #fbbf24 #16a34a #22c55e #4ade80 #0d9488 #14b8a6 #0ea5e9 \
            #38bdf8 #fafafa #f5f5f7 #1c1c1e #2c2c2e #3a3a3c #8e8e93 #c7c7cc #ff3b30 #34c759 #007aff #5856d6
            """)
        static let cssVariables = strings("""
            --color-primary --color-accent --color-text --color-muted --color-surface --color-background \
            --color-border --color-success --color-danger
            """)
        static let keyframes = strings("fade-in fade-out slide-up slide-down pulse shimmer pop-in spin bounce")
        static let easings = strings(
            "ease ease-in ease-out ease-in-out linear cubic-bezier(0.2,0.8,0.2,1) cubic-bezier(0.4,0,0.2,1)")
        static let cssProperties: [(String, [String])] = {
            let spec = """
                display:block|flex|grid|inline-flex|none|inline-block
                position:relative|absolute|fixed|sticky
                top:$len
                left:$len
                right:$len
                bottom:$len
                inset:0
                margin:$box
                padding:$box
                margin-top:$len
                margin-bottom:$len
                padding-top:$len
                padding-bottom:$len
                width:$size
                height:$size
                max-width:$size
                min-height:$size
                color:$color
                background-color:$color
                background:$bg
                border:$border
                border-bottom:$border
                border-radius:$len
                font-family:$font
                font-size:$fs
                font-weight:400|500|600|700|800
                line-height:1|1.2|1.25|1.4|1.5|1.6|$len
                letter-spacing:-0.01em|-0.02em|0.02em|0.04em|0
                text-align:center|left|right
                text-transform:uppercase|none|capitalize
                text-decoration:none|underline|line-through
                align-items:center|flex-start|flex-end|stretch|baseline
                justify-content:center|space-between|flex-start|flex-end|space-around
                flex-direction:row|column|column-reverse
                flex:1|1 1 auto|0 0 auto|none
                flex-wrap:wrap|nowrap
                gap:$len
                opacity:$unit
                transform:$transform
                transition:$trans
                box-shadow:$shadow
                z-index:1|2|10|100|1000|-1
                overflow:hidden|auto|visible
                cursor:pointer|default|not-allowed
                white-space:nowrap|normal|pre-line
                pointer-events:none|auto
                user-select:none|auto
                grid-template-columns:repeat(2, minmax(0, 1fr))|repeat(3, 1fr)|1fr auto|auto 1fr auto
                backdrop-filter:blur(8px)|blur(12px)|blur(20px) saturate(180%)
                animation:$anim
                """
            return spec.split(separator: "\n").map { line in
                let colon = line.firstIndex(of: ":")!
                return (String(line[..<colon]), line[line.index(after: colon)...].split(separator: "|").map(String.init))
            }
        }()
        static let lengths: [Int] = [0, 1, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 120]
        static let pseudo = strings("""
            :hover :focus-visible ::before ::after :active :disabled :first-child :last-child \
            :not(:last-child) :nth-child(2n) .is-active .is-selected .is-hidden
            """)

        static let jsVerbs = list("""
            get set handle update render load fetch init create build parse format validate track log select \
            toggle open close show hide apply reset compute resolve register subscribe emit dispatch normalize \
            merge find ensure check is has should can on to with use make read write save restore start stop \
            schedule cancel prepare attach detach measure
            """)
        static let jsNouns = list("""
            plan plans product products price state config options event events handler listener element node \
            root container button screen step index flow user session locale strings text label value values \
            key keys item items list map result response request payload data error status trial offer discount \
            variant experiment timer duration delay animation frame callback promise queue cache store context \
            props params query path id type name count total amount currency period formatter logger analytics \
            tracker purchase receipt transaction subscription entitlement eligibility layout style theme color \
            width height offset scroll position target source template selection visibility
            """)
        static let jsMembers = list("""
            addEventListener removeEventListener querySelector querySelectorAll classList add remove toggle \
            contains dataset setAttribute getAttribute textContent innerHTML style appendChild createElement \
            preventDefault stopPropagation then catch finally json push map filter reduce forEach find includes \
            indexOf slice join split keys entries assign length toFixed toString now requestAnimationFrame \
            setTimeout clearTimeout postMessage getBoundingClientRect scrollIntoView focus blur current \
            options state config plans selectedPlan locale strings items status
            """)
        static let jsEvents = strings("""
            click change input submit keydown scroll resize load visibilitychange touchstart transitionend
            """)
        /// JSON keys with the kind of value they hold (see `FolderGen.jsonFile`):
        /// 0 id, 1 sentence, 2 integer, 3 price, 4 bool, 5 hash, 6 date, 7 tag array, 8 money object, 9 enum.
        static let jsonKeys: [(String, Int)] = strings("""
            id:0 name:1 title:1 subtitle:1 description:1 type:9 status:9 enabled:4 visible:4 order:2 weight:2 \
            priority:2 variant:9 group:9 locale:9 currency:9 amount:3 price:8 period:9 duration:2 trialDays:2 \
            introPrice:8 sku:0 productId:0 offerId:0 placement:9 source:9 campaign:0 audience:9 segment:9 \
            createdAt:6 updatedAt:6 expiresAt:6 tags:7 labels:7 badges:7 color:9 icon:9 rating:2 author:1 \
            highlight:4 maxUses:2 minVersion:2 platform:9 region:9 experimentId:5 rollout:2 layout:9 theme:9 \
            checksum:5 revision:5
            """).map { token in
                let parts = token.split(separator: ":")
                return (String(parts[0]), Int(parts[1])!)
            }
        static let shortNames: [[UInt8]] = {
            let letters = Array("etnrioasuclfdphmgvybwxkEqjzTNRSOA".utf8)
            var out: [[UInt8]] = letters.map { [$0] }
            for a in letters.prefix(20) {
                for b in letters.prefix(12) { out.append([a, b]) }
            }
            let reserved: Set<[UInt8]> = [Array("do".utf8), Array("if".utf8), Array("in".utf8)]
            return out.filter { !reserved.contains($0) }
        }()
    }
}

// MARK: - Folder generator

extension Corpus {
    fileprivate struct Asset {
        var name: String
        var dir: String
        var kind: Kind
        var size: Int
        var width = 0
        var height = 0
        var path: String { dir.isEmpty ? name : dir + "/" + name }
    }

    fileprivate struct FontFace {
        var fileName: String
        var family: String
        var weight: Int
        var italic: Bool
        var source: Int?
        var size: Int
    }

    fileprivate struct FolderGen {
        var rng: RNG
        let flow: String
        var palette: [[UInt8]] = []
        var classes: [[UInt8]] = []
        var index = Asset(name: "index.html", dir: "", kind: .html, size: 0)
        var screens: [Asset] = []
        var css: [Asset] = []
        var js: [Asset] = []
        var json: [Asset] = []
        var svgs: [Asset] = []
        var images: [Asset] = []
        var fonts: [FontFace] = []
        var fontStack: [UInt8] = []

        // JavaScript writer state
        var jsMin = false
        var jsLocals: [[UInt8]] = []
        var jsFunctions: [[UInt8]] = []
        var jsClasses: [[UInt8]] = []
        var jsProps: [[UInt8]] = []
        /// Names declared in each open block (so `const`/`let` never redeclare), and at top level.
        var jsScopes: [Set<[UInt8]>] = []
        var jsTop: Set<[UInt8]> = []

        init(flow: String, seed: UInt64) {
            self.flow = flow
            rng = RNG(seed: seed)
            _ = rng.next()
        }

        // MARK: plan and write

        /// Plans, generates and writes one bundle folder. Returns the font bytes written.
        mutating func build(
            budget: Int, bigVendor: Bool, fonts library: FontLibrary, fontAllowance: Double, sink: inout Sink
        ) throws -> Int {
            makePalette()
            makeClasses()
            let text = Int(Double(budget) * (0.33 + 0.04 * rng.unit()))

            let screenCount = rng.range(2, 5)
            screens = rng.sample(Vocab.screens, screenCount).map { Asset(name: $0 + ".html", dir: "", kind: .html, size: 0) }
            let cssCount = rng.range(0, 2)
            css = (["app.css"] + rng.sample(Vocab.extraCSS, cssCount)).map { Asset(name: $0, dir: "css", kind: .css, size: 0) }
            let jsCount = rng.range(0, 3)
            js = (["app.js", "vendor.js"] + rng.sample(Vocab.extraJS, jsCount)).map { Asset(name: $0, dir: "js", kind: .js, size: 0) }
            let jsonCount = rng.range(1, 3)
            json = (["config.json", "strings.json"] + rng.sample(Vocab.extraJSON, jsonCount)).map {
                Asset(name: $0, dir: "data", kind: .json, size: 0)
            }
            let svgCount = rng.range(2, 8)
            svgs = (["logo.svg"] + rng.sample(Vocab.svgNames, svgCount)).map { Asset(name: $0, dir: "img", kind: .svg, size: 0) }

            // Text budgets.
            var vendorSize = 0
            var rest = text
            if bigVendor {
                vendorSize = min(1_000_000, max(600_000, Int(Double(text) * 0.7)))
                rest = max(text - vendorSize, text / 4)
            }
            var shares = [0.13, 0.15, 0.44, 0.18, 0.10]
            for i in shares.indices { shares[i] *= 0.8 + 0.4 * rng.unit() }
            let shareSum = shares.reduce(0, +)
            func part(_ i: Int) -> Int { Int(Double(rest) * shares[i] / shareSum) }
            let htmlSizes = split(part(0), [2.5] + screens.map { _ in 1.0 }, minimum: 1500)
            index.size = htmlSizes[0]
            for i in screens.indices { screens[i].size = htmlSizes[i + 1] }
            let cssSizes = split(part(1), [3.0] + css.dropFirst().map { _ in 1.0 }, minimum: 600)
            for i in css.indices { css[i].size = cssSizes[i] }
            let jsSizes = split(part(2), [3.0, bigVendor ? 0.0001 : 2.5] + js.dropFirst(2).map { _ in 1.0 }, minimum: 800)
            for i in js.indices { js[i].size = jsSizes[i] }
            if bigVendor { js[1].size = vendorSize }
            let jsonSizes = split(part(3), [1.5, 1.2] + json.dropFirst(2).map { _ in 1.0 }, minimum: 300)
            for i in json.indices { json[i].size = jsonSizes[i] }
            let svgWeights = svgs.map { s -> Double in
                s.name == "logo.svg" ? 2 : (s.name.hasPrefix("icon") ? 0.6 : 6)
            }
            let svgSizes = split(part(4), svgWeights, minimum: 300)
            for i in svgs.indices {
                svgs[i].size = svgSizes[i]
                let n = svgs[i].name
                if n == "logo.svg" {
                    (svgs[i].width, svgs[i].height) = (120, 32)
                } else if n.hasPrefix("icon") {
                    (svgs[i].width, svgs[i].height) = (24, 24)
                } else if n.hasPrefix("badge") {
                    (svgs[i].width, svgs[i].height) = (96, 32)
                } else if n.hasPrefix("pattern") {
                    (svgs[i].width, svgs[i].height) = (64, 64)
                } else {
                    (svgs[i].width, svgs[i].height) = (320, 240)
                }
            }

            // Fonts, carrying the corpus-wide font share from folder to folder.
            let fontBudget = Corpus.fontShare * Double(budget)
            if library.entries.isEmpty || fontBudget < 0.5 * Double(library.smallestSize) {
                let count = max(1, min(3, Int(fontBudget / 200_000)))
                let each = max(4096, Int(max(fontAllowance, fontBudget) / Double(count)))
                let styles: [(String, Int, Bool)] = [("regular", 400, false), ("bold", 700, false), ("italic", 400, true)]
                for i in 0..<count {
                    fonts.append(
                        FontFace(
                            fileName: "synth-sans-\(styles[i].0).ttf", family: "Synth Sans", weight: styles[i].1,
                            italic: styles[i].2, source: nil, size: each))
                }
            } else {
                // A folder may run somewhat into debt (later folders pay it back), so that big
                // families such as Lato show up as well as the small ones.
                let ceiling = fontAllowance + 0.2 * Double(budget) + 150_000
                func smallest(_ family: [Int]) -> Double {
                    Double(family.map { library.entries[$0].size }.min() ?? 0)
                }
                var family = library.families[rng.below(library.families.count)]
                for _ in 0..<8 where smallest(family) > ceiling {
                    family = library.families[rng.below(library.families.count)]
                }
                if smallest(family) > ceiling { family = library.families[library.smallestFamily] }
                rng.shuffle(&family)
                let first = family.firstIndex { Double(library.entries[$0].size) <= ceiling }
                    ?? family.indices.min { library.entries[family[$0]].size < library.entries[family[$1]].size }!
                family.swapAt(0, first)
                var remaining = fontAllowance
                for i in family {
                    let e = library.entries[i]
                    if fonts.isEmpty || remaining >= Double(e.size) * 0.5 {
                        fonts.append(
                            FontFace(
                                fileName: e.fileName, family: e.family, weight: e.weight, italic: e.italic,
                                source: i, size: e.size))
                        remaining -= Double(e.size)
                    }
                    if fonts.count >= 4 { break }
                }
            }
            let fontBytes = fonts.reduce(0) { $0 + $1.size }
            fontStack = Array("\"\(fonts[0].family)\", -apple-system, BlinkMacSystemFont, \"Segoe UI\", Roboto, sans-serif".utf8)

            // Images fill the rest of the folder.
            let imageBudget = max(6000, budget - text - fontBytes)
            planImages(imageBudget)

            // Who references what: every image/SVG is reached from index.html or from a stylesheet.
            var indexRefs: [Asset] = []
            var cssRefs = [[Asset]](repeating: [], count: css.count)
            for asset in images + svgs where asset.name != "logo.svg" && asset.name != "hero.jpg" {
                if rng.chance(0.55) {
                    indexRefs.append(asset)
                } else {
                    cssRefs[rng.below(css.count)].append(asset)
                }
            }
            rng.shuffle(&indexRefs)

            // Write everything.
            try sink.makeDirectory(flow)
            for sub in ["css", "js", "data", "img", "fonts"] { try sink.makeDirectory(flow + "/" + sub) }
            var written = 0
            for face in fonts {
                let bytes: [UInt8]
                if let source = face.source {
                    bytes = try library.bytes(of: source)
                } else {
                    bytes = Corpus.makeSyntheticFont(size: face.size, family: face.family, rng: &rng)
                }
                written += bytes.count
                try sink.write(flow + "/fonts/" + face.fileName, .font, bytes)
            }
            for image in images {
                let bytes = image.name.hasSuffix(".png")
                    ? Corpus.makePNG(size: image.size, width: image.width, height: image.height, rng: &rng)
                    : Corpus.makeJPEG(size: image.size, width: image.width, height: image.height, rng: &rng)
                try sink.write(flow + "/" + image.path, .image, bytes)
            }
            for file in svgs { try sink.write(flow + "/" + file.path, .svg, svgFile(file)) }
            for file in json { try sink.write(flow + "/" + file.path, .json, jsonFile(file)) }
            for (i, file) in js.enumerated() {
                try sink.write(flow + "/" + file.path, .js, script(file, minified: i == 1 || file.name == "polyfills.js"))
            }
            for (i, file) in css.enumerated() {
                try sink.write(flow + "/" + file.path, .css, stylesheet(file, isMain: i == 0, backgrounds: cssRefs[i]))
            }
            try sink.write(flow + "/index.html", .html, page(index, isIndex: true, refs: indexRefs))
            for screen in screens {
                var refs: [Asset] = []
                let extra = rng.range(0, 4)
                for _ in 0..<extra {
                    let pool = rng.chance(0.6) ? images : svgs
                    if !pool.isEmpty { refs.append(rng.pick(pool)) }
                }
                try sink.write(flow + "/" + screen.name, .html, page(screen, isIndex: false, refs: refs))
            }
            return written
        }

        mutating func split(_ total: Int, _ weights: [Double], minimum: Int) -> [Int] {
            var w = weights
            for i in w.indices { w[i] *= 0.7 + 0.6 * rng.unit() }
            let sum = max(w.reduce(0, +), 1e-9)
            return w.map { max(minimum, Int(Double(total) * $0 / sum)) }
        }

        mutating func makePalette() {
            palette = rng.sample(Vocab.colors, rng.range(5, 8)).map { Array($0.utf8) }
            let extra = rng.range(3, 6)
            for _ in 0..<extra {
                var o = Out(capacity: 7)
                o.byte(35)
                o.hex(rng.next(), digits: 6)
                palette.append(o.b)
            }
        }

        mutating func makeClasses() {
            let blockCount = rng.range(10, 18)
            let blocks = rng.sample(Vocab.blocks, blockCount)
            for block in blocks {
                classes.append(Array(block.utf8))
                let elementCount = rng.range(2, 5)
                for element in rng.sample(Vocab.elements, elementCount) {
                    classes.append(Array("\(block)__\(element)".utf8))
                    if rng.chance(0.2) {
                        classes.append(Array("\(block)__\(element)--\(rng.pick(Vocab.modifiers))".utf8))
                    }
                }
                let modifierCount = rng.range(0, 3)
                for modifier in rng.sample(Vocab.modifiers, modifierCount) {
                    classes.append(Array("\(block)--\(modifier)".utf8))
                }
            }
            rng.shuffle(&classes)
        }

        mutating func planImages(_ budget: Int) {
            var counters: [String: Int] = [:]
            var heroFraction = 0.15 + 0.25 * rng.unit()
            if rng.chance(0.15) { heroFraction = 0.5 + 0.2 * rng.unit() }
            var hero = Asset(
                name: "hero.jpg", dir: "img", kind: .image,
                size: min(1_000_000, max(1500, Int(Double(budget) * heroFraction))))
            var rest = budget - hero.size
            var others: [Asset] = []
            while rest > 0 {
                if rest < 1500 {
                    hero.size += rest
                    break
                }
                let png = rng.chance(0.5)
                let minSize = png ? 400 : 1200
                var size = rng.logUniform(minSize, 450_000)
                if rest - size < 1500 { size = rest }
                let base = png ? rng.pick(Vocab.pngBases) : rng.pick(Vocab.jpgBases)
                let n = counters[base, default: 0] + 1
                counters[base] = n
                others.append(Asset(name: "\(base)-\(n).\(png ? "png" : "jpg")", dir: "img", kind: .image, size: size))
                rest -= size
            }
            images = [hero] + others
            let aspects = [1.0, 4.0 / 3.0, 1.5, 16.0 / 9.0, 0.75, 9.0 / 16.0, 2.0]
            for i in images.indices {
                let png = images[i].name.hasSuffix(".png")
                let pixels = Double(images[i].size) * (png ? 0.6 : 7.0)
                let aspect = rng.pick(aspects)
                let w = max(1, Int((pixels * aspect).squareRoot()))
                images[i].width = w
                images[i].height = max(1, Int(pixels / Double(w)))
            }
        }

        // MARK: prose

        mutating func sentence(_ o: inout Out, _ minWords: Int, _ maxWords: Int, end: UInt8? = nil) {
            let n = rng.range(minWords, maxWords)
            for i in 0..<n {
                let word = Vocab.words[rng.skewed(Vocab.words.count)]
                if i == 0 {
                    o.capitalized(word)
                } else {
                    o.byte(32)
                    o.w(word)
                    if i < n - 1 && rng.chance(0.05) { o.byte(44) }
                }
            }
            if let end { o.byte(end) }
        }

        mutating func paragraph(_ o: inout Out, _ sentences: Int) {
            for i in 0..<sentences {
                if i > 0 { o.byte(32) }
                sentence(&o, 5, 16, end: rng.chance(0.9) ? 46 : 33)
            }
        }

        mutating func cls(_ o: inout Out) {
            o.w(classes[rng.skewed(classes.count)])
            if rng.chance(0.2) {
                o.byte(32)
                o.w(classes[rng.skewed(classes.count)])
            }
        }

        mutating func price(_ o: inout Out) {
            let dollars = rng.pick([0, 1, 2, 4, 4, 6, 9, 9, 12, 14, 19, 29, 39, 49, 59, 79, 99])
            o.int(dollars)
            o.s(rng.chance(0.8) ? ".99" : ".49")
        }

        // MARK: HTML

        mutating func img(_ o: inout Out, _ asset: Asset, level: Int, className: Bool = true) {
            o.indent(level)
            o.s("<img")
            if className {
                o.s(" class=\"")
                cls(&o)
                o.s("\"")
            }
            o.s(" src=\"")
            o.s(asset.path)
            o.s("\" alt=\"")
            if asset.kind == .image { sentence(&o, 2, 6) }
            o.s("\" width=\"")
            o.int(asset.kind == .image ? min(asset.width, 1200) : asset.width)
            o.s("\" height=\"")
            o.int(asset.kind == .image ? asset.height * min(asset.width, 1200) / max(asset.width, 1) : asset.height)
            o.s(asset.name == "hero.jpg" ? "\">\n" : "\" loading=\"lazy\">\n")
        }

        mutating func open(_ o: inout Out, _ tag: String, level: Int) {
            o.indent(level)
            o.s("<")
            o.s(tag)
            o.s(" class=\"")
            cls(&o)
            o.s("\">")
        }

        mutating func page(_ file: Asset, isIndex: Bool, refs: [Asset]) -> [UInt8] {
            var o = Out(capacity: file.size + 8192)
            let screen = String(file.name.dropLast(5))
            o.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n")
            o.s("  <meta name=\"viewport\" content=\"width=device-width, initial-scale=1, viewport-fit=cover\">\n")
            o.s("  <meta name=\"theme-color\" content=\"")
            o.w(palette[0])
            o.s("\">\n  <title>")
            sentence(&o, 2, 5)
            o.s(" - ")
            o.s(flow)
            o.s("</title>\n")
            for (i, sheet) in css.enumerated() where isIndex || i == 0 || rng.chance(0.5) {
                o.s("  <link rel=\"stylesheet\" href=\"")
                o.s(sheet.path)
                o.s("\">\n")
            }
            if isIndex {
                for data in json {
                    o.s("  <link rel=\"preload\" href=\"")
                    o.s(data.path)
                    o.s("\" as=\"fetch\" crossorigin>\n")
                }
            }
            o.s("</head>\n<body class=\"screen screen--")
            o.s(screen)
            o.s("\">\n  <div id=\"app\" class=\"app\" data-flow=\"")
            o.s(flow)
            o.s("\" data-screen=\"")
            o.s(screen)
            o.s("\">\n")
            open(&o, "header", level: 2)
            o.nl()
            if let logo = svgs.first(where: { $0.name == "logo.svg" }) { img(&o, logo, level: 3) }
            if !isIndex {
                o.indent(3)
                o.s("<a class=\"")
                cls(&o)
                o.s("\" href=\"index.html\" aria-label=\"Back\">")
                sentence(&o, 1, 2)
                o.s("</a>\n")
            }
            o.indent(2)
            o.s("</header>\n")
            open(&o, "main", level: 2)
            o.nl()
            var pending = refs
            if isIndex, let hero = images.first(where: { $0.name == "hero.jpg" }) {
                open(&o, "section", level: 3)
                o.nl()
                img(&o, hero, level: 4)
                o.indent(4)
                o.s("<h1 class=\"")
                cls(&o)
                o.s("\">")
                sentence(&o, 3, 8)
                o.s("</h1>\n")
                o.indent(4)
                o.s("<p>")
                paragraph(&o, 1)
                o.s("</p>\n")
                o.indent(3)
                o.s("</section>\n")
            }
            let reserve = 600 + 90 * screens.count + 60 * js.count
            while o.count + reserve < file.size || !pending.isEmpty {
                section(&o, &pending, full: o.count + reserve >= file.size)
            }
            o.indent(2)
            o.s("</main>\n")
            open(&o, "footer", level: 2)
            o.nl()
            o.indent(3)
            o.s("<nav class=\"footer__nav\">\n")
            for target in [index] + screens where target.name != file.name {
                o.indent(4)
                o.s("<a class=\"")
                cls(&o)
                o.s("\" href=\"")
                o.s(target.name)
                o.s("\">")
                sentence(&o, 1, 3)
                o.s("</a>\n")
            }
            o.indent(3)
            o.s("</nav>\n")
            o.indent(3)
            o.s("<p class=\"legal\">")
            paragraph(&o, 2)
            o.s("</p>\n")
            o.indent(2)
            o.s("</footer>\n  </div>\n")
            for (i, script) in js.enumerated() where isIndex || i < 2 || rng.chance(0.4) {
                o.s("  <script src=\"")
                o.s(script.path)
                o.s("\" defer></script>\n")
            }
            o.s("</body>\n</html>\n")
            return o.b
        }

        mutating func section(_ o: inout Out, _ pending: inout [Asset], full: Bool) {
            let kind = !pending.isEmpty && (full || rng.chance(0.3)) ? 5 : rng.below(8)
            open(&o, "section", level: 3)
            o.nl()
            switch kind {
            case 0:
                o.indent(4)
                o.s("<h2 class=\"")
                cls(&o)
                o.s("\">")
                sentence(&o, 3, 9)
                o.s("</h2>\n")
                open(&o, "p", level: 4)
                paragraph(&o, rng.range(1, 3))
                o.s("</p>\n")
                o.indent(4)
                o.s("<button type=\"button\" class=\"btn btn--primary\" data-action=\"")
                o.s(rng.pick(["continue", "purchase", "next", "restore", "skip"]))
                o.s("\">")
                sentence(&o, 1, 3)
                o.s("</button>\n")
            case 1:
                open(&o, "ul", level: 4)
                o.nl()
                let items = rng.range(3, 7)
                for _ in 0..<items {
                    open(&o, "li", level: 5)
                    o.nl()
                    if let i = pending.lastIndex(where: { $0.kind == .svg }) {
                        img(&o, pending.remove(at: i), level: 6, className: false)
                    } else if !svgs.isEmpty {
                        img(&o, rng.pick(svgs), level: 6, className: false)
                    }
                    o.indent(6)
                    o.s("<span>")
                    sentence(&o, 3, 10)
                    o.s("</span>\n")
                    o.indent(5)
                    o.s("</li>\n")
                }
                o.indent(4)
                o.s("</ul>\n")
            case 2:
                let cards = rng.range(2, 3)
                for c in 0..<cards {
                    o.indent(4)
                    o.s("<div class=\"plan-card")
                    if c == 1 { o.s(" plan-card--featured") }
                    o.s("\" data-plan-id=\"plan_")
                    o.s(rng.pick(["weekly", "monthly", "quarterly", "yearly", "lifetime"]))
                    o.s("_")
                    o.int(rng.range(1, 12))
                    o.s("\" role=\"radio\" tabindex=\"0\">\n")
                    o.indent(5)
                    o.s("<h3 class=\"plan-card__title\">")
                    sentence(&o, 1, 3)
                    o.s("</h3>\n")
                    o.indent(5)
                    o.s("<p class=\"plan-card__price\"><span class=\"plan-card__currency\">$</span>")
                    price(&o)
                    o.s("<span class=\"plan-card__period\">/ ")
                    o.s(rng.pick(["week", "month", "year"]))
                    o.s("</span></p>\n")
                    o.indent(5)
                    o.s("<p class=\"plan-card__note\">")
                    sentence(&o, 4, 10, end: 46)
                    o.s("</p>\n")
                    o.indent(4)
                    o.s("</div>\n")
                }
            case 3:
                open(&o, "blockquote", level: 4)
                o.nl()
                if let i = pending.lastIndex(where: { $0.kind == .image }) {
                    img(&o, pending.remove(at: i), level: 5)
                }
                o.indent(5)
                o.s("<p>")
                paragraph(&o, rng.range(1, 3))
                o.s("</p>\n")
                o.indent(5)
                o.s("<cite>")
                o.s(rng.pick(Vocab.names))
                o.s(" ")
                o.s(rng.pick(["A.", "B.", "K.", "M.", "R.", "S.", "T."]))
                o.s("</cite>\n")
                o.indent(4)
                o.s("</blockquote>\n")
            case 4:
                let items = rng.range(2, 5)
                for _ in 0..<items {
                    open(&o, "details", level: 4)
                    o.s("\n")
                    o.indent(5)
                    o.s("<summary>")
                    sentence(&o, 4, 9, end: 63)
                    o.s("</summary>\n")
                    o.indent(5)
                    o.s("<p>")
                    paragraph(&o, rng.range(1, 3))
                    o.s("</p>\n")
                    o.indent(4)
                    o.s("</details>\n")
                }
            case 5:
                let count = min(pending.count, rng.range(1, 4))
                for _ in 0..<count {
                    open(&o, "figure", level: 4)
                    o.nl()
                    img(&o, pending.removeLast(), level: 5)
                    o.indent(5)
                    o.s("<figcaption>")
                    sentence(&o, 3, 9)
                    o.s("</figcaption>\n")
                    o.indent(4)
                    o.s("</figure>\n")
                }
            case 6:
                let options = rng.range(3, 6)
                o.indent(4)
                o.s("<h2>")
                sentence(&o, 4, 9, end: 63)
                o.s("</h2>\n")
                for n in 0..<options {
                    o.indent(4)
                    o.s("<button type=\"button\" class=\"option\" data-answer=\"")
                    o.int(n + 1)
                    o.s("\">")
                    sentence(&o, 1, 5)
                    o.s("</button>\n")
                }
            default:
                open(&o, "p", level: 4)
                paragraph(&o, rng.range(2, 5))
                o.s("</p>\n")
            }
            o.indent(3)
            o.s("</section>\n")
        }

        // MARK: CSS

        mutating func cssColor(_ o: inout Out) {
            let r = rng.below(10)
            if r < 7 {
                o.w(palette[rng.skewed(palette.count)])
            } else if r < 9 {
                o.s("var(")
                o.s(rng.pick(Vocab.cssVariables))
                o.s(")")
            } else {
                o.s("rgba(0, 0, 0, 0.")
                o.int(rng.pick([4, 6, 8, 12, 16, 24, 32, 48, 64]))
                o.s(")")
            }
        }

        mutating func cssLength(_ o: inout Out) {
            let v = rng.chance(0.45) ? rng.range(1, 480) : Vocab.lengths[rng.skewed(Vocab.lengths.count)]
            if v == 0 {
                o.s("0")
            } else if rng.chance(0.2) {
                o.fixed(v * 100 / 16, places: 2, compact: true)
                o.s("rem")
            } else {
                o.int(v)
                o.s("px")
            }
        }

        mutating func cssValue(_ o: inout Out, _ spec: String) {
            switch spec {
            case "$len":
                cssLength(&o)
            case "$size":
                let r = rng.below(8)
                switch r {
                case 0: o.s("100%")
                case 1: o.s("auto")
                case 2: o.s("50%")
                case 3: o.s("100vh")
                case 4: o.s("calc(100% - "); cssLength(&o); o.s(")")
                case 5: o.s("min(480px, 100%)")
                default: cssLength(&o)
                }
            case "$box":
                let n = rng.range(1, 4)
                for i in 0..<n {
                    if i > 0 { o.byte(32) }
                    cssLength(&o)
                }
            case "$color":
                cssColor(&o)
            case "$bg":
                if rng.chance(0.6) {
                    cssColor(&o)
                } else {
                    o.s("linear-gradient(")
                    o.int(rng.pick([90, 135, 180, 180]))
                    o.s("deg, ")
                    cssColor(&o)
                    o.s(" 0%, ")
                    cssColor(&o)
                    o.s(" 100%)")
                }
            case "$border":
                o.int(rng.range(1, 2))
                o.s("px solid ")
                cssColor(&o)
            case "$font":
                if rng.chance(0.5) { o.s("var(--font-body)") } else { o.w(fontStack) }
            case "$fs":
                o.int(rng.pick([11, 12, 13, 14, 15, 16, 17, 18, 20, 22, 24, 28, 32, 40, 48]))
                o.s("px")
            case "$unit":
                o.s(rng.pick(["0", "0.4", "0.5", "0.6", "0.72", "0.8", "0.9", "1"]))
            case "$transform":
                switch rng.below(5) {
                case 0: o.s("translateY("); o.int(rng.range(-24, 24)); o.s("px)")
                case 1: o.s("scale(0.9"); o.int(rng.range(0, 9)); o.s(")")
                case 2: o.s("translate(-50%, -50%)")
                case 3: o.s("rotate("); o.int(rng.pick([-90, -45, 45, 90, 180])); o.s("deg)")
                default: o.s("translateX("); o.int(rng.range(-100, 100)); o.s("%)")
                }
            case "$trans":
                let n = rng.range(1, 2)
                for i in 0..<n {
                    if i > 0 { o.s(", ") }
                    o.s(rng.pick(["opacity", "transform", "background-color", "color", "box-shadow", "all"]))
                    o.s(" ")
                    o.s(rng.pick(["0.15s", "0.2s", "0.25s", "0.3s", "0.4s", "150ms", "200ms"]))
                    o.s(" ")
                    o.s(rng.pick(Vocab.easings))
                }
            case "$shadow":
                if rng.chance(0.2) {
                    o.s("none")
                } else {
                    o.s("0 ")
                    o.int(rng.pick([1, 2, 4, 8, 12]))
                    o.s("px ")
                    o.int(rng.pick([2, 4, 8, 16, 24, 32]))
                    o.s("px rgba(0, 0, 0, 0.")
                    o.int(rng.pick([4, 6, 8, 1, 12, 16, 2]))
                    o.s(")")
                }
            case "$anim":
                o.s(rng.pick(Vocab.keyframes))
                o.s(" ")
                o.s(rng.pick(["0.3s", "0.4s", "0.6s", "1s", "1.2s", "2s"]))
                o.s(" ")
                o.s(rng.pick(Vocab.easings))
                o.s(rng.pick([" both", " forwards", " infinite", ""]))
            default:
                o.s(spec)
            }
        }

        mutating func selector(_ o: inout Out) {
            let n = rng.chance(0.75) ? 1 : rng.range(2, 3)
            for i in 0..<n {
                if i > 0 { o.s(",\n") }
                o.byte(46)
                o.w(classes[rng.skewed(classes.count)])
                let r = rng.below(10)
                if r < 3 {
                    o.s(rng.pick(Vocab.pseudo))
                } else if r < 5 {
                    o.s(rng.chance(0.5) ? " > ." : " .")
                    o.w(classes[rng.skewed(classes.count)])
                }
            }
        }

        mutating func rule(_ o: inout Out, level: Int) {
            o.indent(level)
            selector(&o)
            o.s(" {\n")
            let n = rng.range(2, 8)
            for _ in 0..<n {
                let (property, values) = Vocab.cssProperties[rng.below(Vocab.cssProperties.count)]
                o.indent(level + 1)
                o.s(property)
                o.s(": ")
                cssValue(&o, rng.pick(values))
                o.s(";\n")
            }
            o.indent(level)
            o.s("}\n\n")
        }

        mutating func stylesheet(_ file: Asset, isMain: Bool, backgrounds: [Asset]) -> [UInt8] {
            // Secondary stylesheets are sometimes shipped minified; write ~30% more and squeeze.
            let minified = !isMain && rng.chance(0.4)
            var file = file
            if minified { file.size = file.size * 13 / 10 }
            var o = Out(capacity: file.size + 4096)
            o.s("/* ")
            o.s(flow)
            o.s(" / ")
            o.s(file.name)
            o.s(" */\n\n")
            if isMain {
                for face in fonts {
                    o.s("@font-face {\n  font-family: \"")
                    o.s(face.family)
                    o.s("\";\n  font-style: ")
                    o.s(face.italic ? "italic" : "normal")
                    o.s(";\n  font-weight: ")
                    o.int(face.weight)
                    o.s(";\n  font-display: swap;\n  src: url(\"../fonts/")
                    o.s(face.fileName)
                    o.s("\") format(\"truetype\");\n}\n\n")
                }
                o.s(":root {\n")
                for (i, name) in Vocab.cssVariables.enumerated() {
                    o.s("  ")
                    o.s(name)
                    o.s(": ")
                    o.w(palette[i % palette.count])
                    o.s(";\n")
                }
                o.s("  --font-body: ")
                o.w(fontStack)
                o.s(";\n  --radius-card: ")
                o.int(rng.pick([8, 12, 16, 20, 24]))
                o.s("px;\n}\n\n")
                o.s("*,\n*::before,\n*::after {\n  box-sizing: border-box;\n}\n\n")
                o.s("html,\nbody {\n  margin: 0;\n  padding: 0;\n  font-family: var(--font-body);\n")
                o.s("  color: var(--color-text);\n  background: var(--color-background);\n")
                o.s("  -webkit-font-smoothing: antialiased;\n}\n\n")
            }
            var pending = backgrounds
            while o.count < file.size || !pending.isEmpty {
                if !pending.isEmpty && (o.count >= file.size || rng.chance(0.25)) {
                    let asset = pending.removeLast()
                    o.byte(46)
                    o.w(classes[rng.skewed(classes.count)])
                    o.s(" {\n  background-image: url(../")
                    o.s(asset.path)
                    o.s(");\n")
                    if asset.kind == .svg {
                        o.s("  background-repeat: no-repeat;\n  background-size: ")
                        o.int(asset.width)
                        o.s("px ")
                        o.int(asset.height)
                        o.s("px;\n")
                    } else {
                        o.s("  background-size: cover;\n  background-position: center;\n")
                    }
                    o.s("}\n\n")
                    continue
                }
                let r = rng.below(24)
                if r == 0 {
                    o.s("@keyframes ")
                    o.s(rng.pick(Vocab.keyframes))
                    o.s(" {\n  from {\n    opacity: 0;\n    transform: ")
                    cssValue(&o, "$transform")
                    o.s(";\n  }\n  to {\n    opacity: 1;\n    transform: none;\n  }\n}\n\n")
                } else if r < 3 {
                    o.s("@media (")
                    o.s(rng.pick(["min-width: 768px", "max-width: 375px", "min-width: 1024px", "prefers-color-scheme: dark", "prefers-reduced-motion: reduce"]))
                    o.s(") {\n")
                    let n = rng.range(1, 4)
                    for _ in 0..<n { rule(&o, level: 1) }
                    o.s("}\n\n")
                } else {
                    rule(&o, level: 0)
                }
            }
            return minified ? Corpus.minifyCSS(o.b) : o.b
        }

        // MARK: JavaScript

        mutating func camel(_ capitalizeFirst: Bool) -> [UInt8] {
            var o = Out(capacity: 24)
            let verb = rng.chance(0.6)
            let first = verb ? Vocab.jsVerbs[rng.skewed(Vocab.jsVerbs.count)] : Vocab.jsNouns[rng.skewed(Vocab.jsNouns.count)]
            if capitalizeFirst { o.capitalized(first) } else { o.w(first) }
            o.capitalized(Vocab.jsNouns[rng.skewed(Vocab.jsNouns.count)])
            if rng.chance(0.25) { o.capitalized(Vocab.jsNouns[rng.below(Vocab.jsNouns.count)]) }
            return o.b
        }

        mutating func jsPools() {
            jsProps = Vocab.jsMembers
            for _ in 0..<40 { jsProps.append(camel(false)) }
            rng.shuffle(&jsProps)
            if jsMin {
                let pool = Vocab.shortNames
                jsLocals = Array(pool.prefix(24))
                jsFunctions = Array(pool.dropFirst(24).prefix(120))
                rng.shuffle(&jsFunctions)
                jsClasses = Array(jsFunctions.prefix(16))
            } else {
                jsLocals = Vocab.jsNouns.prefix(40).map { $0 }
                for _ in 0..<30 { jsLocals.append(camel(false)) }
                rng.shuffle(&jsLocals)
                jsFunctions = []
                for _ in 0..<60 { jsFunctions.append(camel(false)) }
                jsClasses = []
                for _ in 0..<10 {
                    var o = Out(capacity: 32)
                    o.capitalized(Vocab.jsNouns[rng.below(Vocab.jsNouns.count)])
                    o.s(rng.pick(["Controller", "Store", "Service", "View", "Manager", "Tracker", "Client"]))
                    jsClasses.append(o.b)
                }
            }
        }

        mutating func sp(_ o: inout Out) { if !jsMin { o.byte(32) } }
        mutating func jsIndent(_ o: inout Out, _ depth: Int) { if !jsMin { o.indent(depth) } }
        mutating func jsEnd(_ o: inout Out) { if !jsMin { o.nl() } }

        mutating func jsLocal(_ o: inout Out) { o.w(jsLocals[rng.skewed(jsLocals.count)]) }
        mutating func jsProp(_ o: inout Out) { o.w(jsProps[rng.skewed(jsProps.count)]) }

        mutating func jsString(_ o: inout Out) {
            let q: UInt8 = jsMin ? 34 : 39
            o.byte(q)
            switch rng.below(6) {
            case 0, 1: sentence(&o, 2, 8)
            case 2:
                o.s(rng.pick(Vocab.screens))
                o.byte(95)
                o.s(rng.pick(["viewed", "closed", "purchased", "selected", "started", "completed", "failed"]))
            case 3:
                o.byte(46)
                o.w(classes[rng.skewed(classes.count)])
            case 4: o.s(rng.pick(Vocab.jsEvents))
            default: o.s(rng.pick(Vocab.modifiers))
            }
            o.byte(q)
        }

        mutating func jsNumber(_ o: inout Out) {
            switch rng.below(4) {
            case 0: o.int(rng.pick([0, 1, 2, 3, 10, 100, 1000]))
            case 1: o.int(rng.pick([16, 24, 60, 300, 500, 3600, 86400]))
            case 2: price(&o)
            default: o.int(rng.range(0, 999))
            }
        }

        mutating func jsArgs(_ o: inout Out, _ depth: Int) {
            o.byte(40)
            let n = rng.range(0, 3)
            for i in 0..<n {
                if i > 0 {
                    o.byte(44)
                    sp(&o)
                }
                jsExpr(&o, depth + 1)
            }
            o.byte(41)
        }

        mutating func jsRef(_ o: inout Out) {
            switch rng.below(4) {
            case 0:
                o.s("this.")
                jsProp(&o)
            case 1:
                jsLocal(&o)
                o.byte(46)
                jsProp(&o)
            default:
                jsLocal(&o)
            }
        }

        mutating func jsExpr(_ o: inout Out, _ depth: Int) {
            let r = depth > 2 ? rng.below(4) : rng.below(12)
            switch r {
            case 0: jsRef(&o)
            case 1: jsNumber(&o)
            case 2: jsString(&o)
            case 3:
                jsRef(&o)
                o.byte(46)
                jsProp(&o)
            case 4:
                jsRef(&o)
                o.byte(46)
                jsProp(&o)
                jsArgs(&o, depth)
            case 5:
                if depth > 0 { o.byte(40) }
                jsExpr(&o, depth + 1)
                sp(&o)
                o.s(rng.pick(["===", "!==", "&&", "||", "+", "-", "*", ">", "<=", "??"]))
                sp(&o)
                jsExpr(&o, depth + 1)
                if depth > 0 { o.byte(41) }
            case 6:
                if depth > 0 { o.byte(40) }
                o.byte(40)
                jsLocal(&o)
                o.byte(41)
                sp(&o)
                o.s("=>")
                sp(&o)
                jsExpr(&o, 3)
                if depth > 0 { o.byte(41) }
            case 7:
                o.byte(123)
                sp(&o)
                let n = rng.range(1, 4)
                for i in 0..<n {
                    if i > 0 {
                        o.byte(44)
                        sp(&o)
                    }
                    jsProp(&o)
                    o.byte(58)
                    sp(&o)
                    jsExpr(&o, depth + 1)
                }
                sp(&o)
                o.byte(125)
            case 8:
                o.byte(91)
                let n = rng.range(1, 4)
                for i in 0..<n {
                    if i > 0 {
                        o.byte(44)
                        sp(&o)
                    }
                    if rng.chance(0.5) { jsString(&o) } else { jsNumber(&o) }
                }
                o.byte(93)
            case 9:
                if depth > 0 { o.byte(40) }
                jsRef(&o)
                sp(&o)
                o.byte(63)
                sp(&o)
                jsExpr(&o, depth + 1)
                sp(&o)
                o.byte(58)
                sp(&o)
                jsExpr(&o, depth + 1)
                if depth > 0 { o.byte(41) }
            case 10:
                o.s("new ")
                o.w(rng.pick(jsClasses))
                jsArgs(&o, depth)
            default:
                o.byte(33)
                jsRef(&o)
            }
        }

        mutating func jsBlock(_ o: inout Out, _ depth: Int, _ count: Int, async: Bool) {
            for _ in 0..<count { jsStatement(&o, depth, async: async) }
        }

        mutating func jsBraced(_ o: inout Out, _ depth: Int, async: Bool, bound: [[UInt8]] = []) {
            sp(&o)
            o.byte(123)
            jsEnd(&o)
            jsScopes.append(Set(bound))
            jsBlock(&o, depth + 1, rng.range(1, 3), async: async)
            jsScopes.removeLast()
            jsIndent(&o, depth)
            o.byte(125)
        }

        /// Writes `const name = ` (or `let`/`var`) with a name not yet declared in this block.
        /// Returns false (writing nothing) when no fresh name was found.
        mutating func jsDeclare(_ o: inout Out) -> Bool {
            if jsMin {
                o.s("var ")
                jsLocal(&o)
                return true
            }
            for _ in 0..<4 {
                let name = jsLocals[rng.skewed(jsLocals.count)]
                if jsScopes.last?.contains(name) == true { continue }
                if !jsScopes.isEmpty { jsScopes[jsScopes.count - 1].insert(name) }
                o.s(rng.chance(0.75) ? "const " : "let ")
                o.w(name)
                return true
            }
            return false
        }

        /// A top-level name that is unique in the file (class/const names must not clash).
        mutating func jsUnique(_ base: [UInt8]) -> [UInt8] {
            var name = base
            var n = 2
            while jsTop.contains(name) {
                name = base + Array(String(n).utf8)
                n += 1
            }
            jsTop.insert(name)
            return name
        }

        mutating func jsStatement(_ o: inout Out, _ depth: Int, async: Bool) {
            jsIndent(&o, depth)
            var choice = rng.below(depth >= 4 ? 6 : 11)
            if choice <= 1 || (choice == 5 && async && !json.isEmpty) {
                if !jsDeclare(&o) { choice = 2 }
            }
            switch choice {
            case 0, 1:
                sp(&o)
                o.byte(61)
                sp(&o)
                jsExpr(&o, 0)
                o.byte(59)
            case 2:
                jsRef(&o)
                o.byte(46)
                jsProp(&o)
                sp(&o)
                o.byte(61)
                sp(&o)
                jsExpr(&o, 0)
                o.byte(59)
            case 3:
                jsRef(&o)
                o.byte(46)
                jsProp(&o)
                jsArgs(&o, 0)
                o.byte(59)
            case 4:
                o.s("logger.")
                o.s(rng.pick(["debug", "info", "warn", "error"]))
                o.byte(40)
                jsString(&o)
                o.byte(44)
                sp(&o)
                jsLocal(&o)
                o.s(");")
            case 5:
                if async && !json.isEmpty {
                    sp(&o)
                    o.byte(61)
                    sp(&o)
                    o.s("await fetch(")
                    o.byte(jsMin ? 34 : 39)
                    o.s(rng.pick(json).path)
                    o.byte(jsMin ? 34 : 39)
                    o.s(").then(")
                    o.s(jsMin ? "e=>e.json()" : "(response) => response.json()")
                    o.s(");")
                } else {
                    o.s("return ")
                    jsExpr(&o, 0)
                    o.byte(59)
                }
            case 6:
                o.s("if")
                sp(&o)
                o.byte(40)
                jsExpr(&o, 1)
                o.byte(41)
                jsBraced(&o, depth, async: async)
                if rng.chance(0.35) {
                    sp(&o)
                    o.s("else")
                    jsBraced(&o, depth, async: async)
                }
            case 7:
                o.s(jsMin ? "for(var " : "for (const ")
                jsLocal(&o)
                o.s(" of ")
                jsRef(&o)
                o.byte(41)
                jsBraced(&o, depth, async: async)
            case 8:
                o.s("try")
                jsBraced(&o, depth, async: async)
                sp(&o)
                o.s(jsMin ? "catch(e)" : "catch (error)")
                sp(&o)
                o.byte(123)
                jsEnd(&o)
                jsIndent(&o, depth + 1)
                o.s("logger.error(")
                jsString(&o)
                o.s(jsMin ? ",e);" : ", error);")
                jsEnd(&o)
                jsIndent(&o, depth)
                o.byte(125)
            case 9:
                jsRef(&o)
                o.s(".addEventListener(")
                o.byte(jsMin ? 34 : 39)
                o.s(rng.pick(Vocab.jsEvents))
                o.byte(jsMin ? 34 : 39)
                o.byte(44)
                sp(&o)
                let parameter = jsLocals[rng.skewed(jsLocals.count)]
                o.byte(40)
                o.w(parameter)
                o.byte(41)
                sp(&o)
                o.s("=>")
                jsBraced(&o, depth, async: false, bound: [parameter])
                o.s(");")
            default:
                jsRef(&o)
                sp(&o)
                o.s(rng.pick(["=", "+=", "||="]))
                sp(&o)
                jsExpr(&o, 0)
                o.byte(59)
            }
            jsEnd(&o)
        }

        mutating func jsParams(_ o: inout Out) -> [[UInt8]] {
            o.byte(40)
            let n = rng.range(0, 3)
            var names: [[UInt8]] = []
            while names.count < n {
                let name = jsLocals[rng.skewed(jsLocals.count)]
                if names.contains(name) { continue }
                if !names.isEmpty {
                    o.byte(44)
                    sp(&o)
                }
                o.w(name)
                names.append(name)
            }
            o.byte(41)
            return names
        }

        mutating func script(_ file: Asset, minified: Bool) -> [UInt8] {
            jsMin = minified
            jsPools()
            jsScopes = []
            jsTop = minified ? [[101], [116]] : [Array("FLOW_ID".utf8), Array("global".utf8)]
            var o = Out(capacity: file.size + 16384)
            o.s("/*! ")
            o.s(flow)
            o.s("/")
            o.s(file.path)
            o.s(" build ")
            o.hex(rng.next(), digits: 8)
            o.s(" */\n")
            if jsMin {
                o.s("!function(e,t){\"use strict\";")
            } else {
                o.s("'use strict';\n\n(function (global) {\n  const FLOW_ID = '")
                o.s(flow)
                o.s("';\n\n")
            }
            let depth = jsMin ? 0 : 1
            while o.count + 40 < file.size {
                let r = rng.below(10)
                if r < 6 {
                    let async = rng.chance(0.25)
                    jsIndent(&o, depth)
                    if async { o.s("async ") }
                    o.s("function ")
                    o.w(jsUnique(rng.pick(jsFunctions)))
                    let parameters = jsParams(&o)
                    sp(&o)
                    o.byte(123)
                    jsEnd(&o)
                    jsScopes = [Set(parameters)]
                    jsBlock(&o, depth + 1, rng.range(2, 7), async: async)
                    jsIndent(&o, depth + 1)
                    o.s("return ")
                    jsExpr(&o, 0)
                    o.byte(59)
                    jsEnd(&o)
                    jsIndent(&o, depth)
                    o.byte(125)
                } else if r < 8 {
                    jsIndent(&o, depth)
                    o.s("class ")
                    o.w(jsUnique(rng.pick(jsClasses)))
                    sp(&o)
                    o.byte(123)
                    jsEnd(&o)
                    let methods = rng.range(2, 5)
                    for m in 0..<methods {
                        jsIndent(&o, depth + 1)
                        if m == 0 {
                            o.s("constructor")
                        } else {
                            jsProp(&o)
                        }
                        let parameters = jsParams(&o)
                        sp(&o)
                        o.byte(123)
                        jsEnd(&o)
                        jsScopes = [Set(parameters)]
                        jsBlock(&o, depth + 2, rng.range(1, 5), async: false)
                        jsIndent(&o, depth + 1)
                        o.byte(125)
                        jsEnd(&o)
                    }
                    jsIndent(&o, depth)
                    o.byte(125)
                } else {
                    jsIndent(&o, depth)
                    if jsMin {
                        o.s("var ")
                        o.w(jsUnique(rng.pick(jsFunctions)))
                    } else {
                        o.s("const ")
                        let a = Vocab.jsNouns[rng.skewed(Vocab.jsNouns.count)]
                        let b = Vocab.jsNouns[rng.below(Vocab.jsNouns.count)]
                        o.w(jsUnique((a + [95] + b).map { $0 >= 97 && $0 <= 122 ? $0 - 32 : $0 }))
                    }
                    sp(&o)
                    o.byte(61)
                    sp(&o)
                    o.byte(123)
                    jsEnd(&o)
                    let n = rng.range(3, 9)
                    for i in 0..<n {
                        jsIndent(&o, depth + 1)
                        jsProp(&o)
                        o.byte(58)
                        sp(&o)
                        switch rng.below(4) {
                        case 0: jsString(&o)
                        case 1: jsNumber(&o)
                        case 2: o.s(rng.chance(0.5) ? "true" : "false")
                        default: jsExpr(&o, 2)
                        }
                        if i < n - 1 { o.byte(44) }
                        jsEnd(&o)
                    }
                    jsIndent(&o, depth)
                    o.s("};")
                }
                jsEnd(&o)
                if !jsMin { o.nl() }
            }
            o.s(jsMin ? "}(window,document);\n" : "})(window);\n")
            return o.b
        }

        // MARK: JSON

        mutating func jsonString(_ o: inout Out, _ kind: Int) {
            o.byte(34)
            switch kind {
            case 0:
                o.s(rng.pick(["plan", "prod", "offer", "exp", "item"]))
                o.byte(95)
                o.w(Vocab.words[rng.skewed(Vocab.words.count)])
                o.byte(95)
                o.int(rng.range(1, 99))
            case 1: sentence(&o, 3, 12, end: 46)
            case 5: o.hex(rng.next(), digits: 16)
            case 6:
                o.int(rng.range(2023, 2025))
                o.byte(45)
                let month = rng.range(1, 12), day = rng.range(1, 28)
                if month < 10 { o.byte(48) }
                o.int(month)
                o.byte(45)
                if day < 10 { o.byte(48) }
                o.int(day)
                o.s("T")
                let hour = rng.range(0, 23)
                if hour < 10 { o.byte(48) }
                o.int(hour)
                o.s(":00:00Z")
            default: o.s(rng.pick(Vocab.modifiers))
            }
            o.byte(34)
        }

        mutating func jsonFile(_ file: Asset) -> [UInt8] {
            var o = Out(capacity: file.size + 4096)
            let pretty = rng.chance(0.75)
            func newline(_ o: inout Out, _ level: Int) {
                if pretty {
                    o.nl()
                    o.indent(level)
                }
            }
            let colon = pretty ? ": " : ":"
            o.s("{")
            newline(&o, 1)
            o.s("\"schemaVersion\"")
            o.s(colon)
            o.int(rng.range(1, 4))
            o.byte(44)
            newline(&o, 1)
            o.s("\"flow\"")
            o.s(colon)
            o.s("\"")
            o.s(flow)
            o.s("\",")
            newline(&o, 1)
            if file.name == "strings.json" {
                o.s("\"locale\"")
                o.s(colon)
                o.s("\"en\",")
                newline(&o, 1)
                o.s("\"strings\"")
                o.s(colon)
                o.s("{")
                var first = true
                while o.count + 8 < file.size || first {
                    if !first { o.byte(44) }
                    first = false
                    newline(&o, 2)
                    o.byte(34)
                    o.s(rng.pick(Vocab.screens))
                    o.byte(46)
                    o.w(classes[rng.skewed(classes.count)])
                    if rng.chance(0.3) {
                        o.byte(95)
                        o.int(rng.range(1, 9))
                    }
                    o.byte(34)
                    o.s(colon)
                    jsonString(&o, 1)
                }
                newline(&o, 1)
                o.s("}")
            } else {
                let keyCount = rng.range(5, 11)
                let fields = rng.sample(Vocab.jsonKeys, keyCount)
                let keys = fields.map { $0.0 }
                let types = fields.map { $0.1 }
                o.s("\"items\"")
                o.s(colon)
                o.s("[")
                var first = true
                var order = 0
                while o.count + 8 < file.size || first {
                    if !first { o.byte(44) }
                    first = false
                    order += 1
                    newline(&o, 2)
                    o.s("{")
                    for (k, key) in keys.enumerated() {
                        if k > 0 { o.byte(44) }
                        newline(&o, 3)
                        o.byte(34)
                        o.s(key)
                        o.byte(34)
                        o.s(colon)
                        switch types[k] {
                        case 2: o.int(k == 0 ? order : rng.range(0, 30))
                        case 3: price(&o)
                        case 4: o.s(rng.chance(0.6) ? "true" : "false")
                        case 7:
                            o.s("[")
                            let n = rng.range(0, 3)
                            for i in 0..<n {
                                if i > 0 { o.s(pretty ? ", " : ",") }
                                jsonString(&o, 9)
                            }
                            o.s("]")
                        case 8:
                            o.s("{")
                            o.s(pretty ? "\"amount\": " : "\"amount\":")
                            price(&o)
                            o.s(pretty ? ", \"currency\": \"" : ",\"currency\":\"")
                            o.s(rng.pick(["USD", "USD", "EUR", "GBP"]))
                            o.s("\"}")
                        default: jsonString(&o, types[k])
                        }
                    }
                    newline(&o, 2)
                    o.s("}")
                }
                newline(&o, 1)
                o.s("]")
            }
            newline(&o, 0)
            o.s("}\n")
            return o.b
        }

        // MARK: SVG

        mutating func svgNumber(_ o: inout Out, _ scaled: Int, leadingSpace: Bool) {
            if leadingSpace && scaled >= 0 { o.byte(32) }
            o.fixed(scaled, places: 2, compact: true)
        }

        mutating func svgFile(_ file: Asset) -> [UInt8] {
            var o = Out(capacity: file.size + 2048)
            let w = file.width, h = file.height
            o.s("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
            o.int(w)
            o.s("\" height=\"")
            o.int(h)
            o.s("\" viewBox=\"0 0 ")
            o.int(w)
            o.s(" ")
            o.int(h)
            o.s("\" fill=\"none\">\n")
            let span = max(w, h) * 100
            while o.count + 40 < file.size {
                if rng.chance(0.12) {
                    o.s(rng.chance(0.5) ? "  <circle cx=\"" : "  <ellipse cx=\"")
                    o.fixed(rng.below(w * 100), places: 2, compact: true)
                    o.s("\" cy=\"")
                    o.fixed(rng.below(h * 100), places: 2, compact: true)
                    o.s("\" r=\"")
                    o.fixed(rng.range(50, span / 4), places: 2, compact: true)
                    o.s("\" fill=\"")
                    o.w(palette[rng.skewed(palette.count)])
                    o.s("\"/>\n")
                    continue
                }
                o.s("  <path d=\"M")
                o.fixed(rng.below(w * 100), places: 2, compact: true)
                svgNumber(&o, rng.below(h * 100), leadingSpace: true)
                let segments = rng.range(3, file.width <= 24 ? 12 : 40)
                for _ in 0..<segments {
                    let delta = max(60, span / 6)
                    switch rng.below(6) {
                    case 0, 1:
                        o.byte(99)
                        for i in 0..<6 { svgNumber(&o, rng.range(-delta, delta), leadingSpace: i > 0) }
                    case 2:
                        o.byte(108)
                        svgNumber(&o, rng.range(-delta, delta), leadingSpace: false)
                        svgNumber(&o, rng.range(-delta, delta), leadingSpace: true)
                    case 3:
                        o.byte(rng.chance(0.5) ? 104 : 118)
                        svgNumber(&o, rng.range(-delta, delta), leadingSpace: false)
                    case 4:
                        o.byte(115)
                        for i in 0..<4 { svgNumber(&o, rng.range(-delta, delta), leadingSpace: i > 0) }
                    default:
                        o.byte(97)
                        let r = rng.range(25, delta)
                        svgNumber(&o, r, leadingSpace: false)
                        svgNumber(&o, r, leadingSpace: true)
                        o.s(" 0 0 ")
                        o.int(rng.below(2))
                        svgNumber(&o, rng.range(-delta, delta), leadingSpace: true)
                        svgNumber(&o, rng.range(-delta, delta), leadingSpace: true)
                    }
                }
                o.s(rng.chance(0.7) ? "z\" fill=\"" : "\" stroke-width=\"1.5\" stroke-linecap=\"round\" stroke=\"")
                if rng.chance(0.3) { o.s("currentColor") } else { o.w(palette[rng.skewed(palette.count)]) }
                o.s(rng.chance(0.3) ? "\" fill-rule=\"evenodd\" clip-rule=\"evenodd\"/>\n" : "\"/>\n")
            }
            o.s("</svg>\n")
            return o.b
        }
    }
}
