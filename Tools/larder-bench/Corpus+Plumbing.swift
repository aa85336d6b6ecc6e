import Foundation
import Glibc
import LarderToolSupport

extension Corpus {
    static let fontDirectory = "/usr/share/fonts/truetype"
    static let fontShare = 0.15

    enum Kind: Int, CaseIterable {
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

    static func folderName(_ n: Int) -> String {
        var digits = String(n)
        while digits.count < 4 { digits = "0" + digits }
        return "flow-" + digits
    }

    static func posixError() -> String {
        String(cString: strerror(errno))
    }

    static func prepareRoot(_ path: String) throws {
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
    struct Sink {
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

    /// LarderToolSupport's SplitMix64 (fully specified there, so output never depends on the
    /// toolchain) with the draws the corpus makes.
    struct RNG {
        var generator: SeededGenerator
        init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

        mutating func next() -> UInt64 { generator.next() }
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
    struct Output {
        var bytes: [UInt8] = []
        init(capacity: Int) { bytes.reserveCapacity(capacity) }
        var count: Int { bytes.count }

        mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }
        mutating func append(contentsOf more: [UInt8]) { bytes.append(contentsOf: more) }
        mutating func byte(_ c: UInt8) { bytes.append(c) }
        mutating func newline() { bytes.append(10) }
        mutating func indent(_ level: Int) {
            for _ in 0..<(2 * level) { bytes.append(32) }
        }
        /// `word` with its first letter upper-cased.
        mutating func capitalized(_ word: [UInt8]) {
            guard let first = word.first else { return }
            bytes.append(first >= 97 && first <= 122 ? first - 32 : first)
            bytes.append(contentsOf: word[1...])
        }
        mutating func decimal(_ value: Int) {
            var v = value
            if v < 0 {
                bytes.append(45)
                v = -v
            }
            if v < 10 {
                bytes.append(48 + UInt8(v))
                return
            }
            var div = 1
            while div <= v / 10 { div *= 10 }
            while div > 0 {
                bytes.append(48 + UInt8(v / div))
                v %= div
                div /= 10
            }
        }
        /// Prints `scaled / 10^places`. `compact` trims trailing zeros and a leading "0." like SVGO.
        mutating func fixed(_ scaled: Int, places: Int, compact: Bool = false) {
            var v = scaled
            if v < 0 {
                bytes.append(45)
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
            if !(compact && whole == 0 && digits > 0) { decimal(whole) }
            if digits > 0 {
                bytes.append(46)
                var div = 1
                for _ in 1..<digits { div *= 10 }
                while div > 0 {
                    bytes.append(48 + UInt8(frac / div))
                    frac %= div
                    div /= 10
                }
            }
        }
        mutating func hex(_ value: UInt64, digits: Int) {
            let table: [UInt8] = Array("0123456789abcdef".utf8)
            var shift = (digits - 1) * 4
            while shift >= 0 {
                bytes.append(table[Int((value >> UInt64(shift)) & 0xF)])
                shift -= 4
            }
        }
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8], from start: Int, to end: Int) -> UInt32 {
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

    static func be16(_ buffer: inout [UInt8], _ v: Int) {
        buffer.append(UInt8(truncatingIfNeeded: v >> 8))
        buffer.append(UInt8(truncatingIfNeeded: v))
    }

    static func be32(_ buffer: inout [UInt8], _ v: UInt32) {
        buffer.append(UInt8(truncatingIfNeeded: v >> 24))
        buffer.append(UInt8(truncatingIfNeeded: v >> 16))
        buffer.append(UInt8(truncatingIfNeeded: v >> 8))
        buffer.append(UInt8(truncatingIfNeeded: v))
    }

    /// Appends `count` PRNG bytes to `buffer`.
    static func appendRandom(_ buffer: inout [UInt8], _ count: Int, _ random: inout RNG) {
        guard count > 0 else { return }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: count))
        buffer.withUnsafeMutableBytes { raw in
            random.fill(UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + count)]))
        }
    }
}
