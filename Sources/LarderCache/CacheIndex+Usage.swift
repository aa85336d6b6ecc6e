import LarderFormat

extension CacheIndex {
    /// Each bundle's bytes in objects no other bundle uses and in objects others use too
    /// (quarantined objects count for nothing; an object listed twice in one bundle counts
    /// once). One scan of the file rows in key order (grouped by bundle, no sort), reading each
    /// digest's bytes in place and counting users per object in memory: SQLite's own grouping
    /// sorts every row, several times slower at 100,000 files.
    /// - Complexity: O(f) in the number of file rows.
    func bytesBySharing() throws(CacheError) -> [Digest: (unique: Int64, shared: Int64)] {
        let path = database.path
        var quarantined = Set<DigestKey>()
        let bad = try database.prepare("SELECT digest FROM quarantined")
        while try bad.step() { quarantined.insert(try bad.withTextBytes(0) { (bytes) throws(CacheError) in try DigestKey(bytes, path: path) }) }
        let count = try database.prepare("SELECT COUNT(*) FROM files")
        let rows = try count.step() ? Int(count.int(0)) : 0
        var objectIDs: [DigestKey: Int32] = [:]
        objectIDs.reserveCapacity(rows)
        var users: [Int32] = []
        users.reserveCapacity(rows)
        var references: [(bundle: Int32, object: Int32, size: Int64)] = []
        references.reserveCapacity(rows)
        var bundles: [DigestKey] = []
        var inBundle = Set<Int32>()
        let query = try database.prepare("SELECT bundle, object, size FROM files ORDER BY bundle")
        while try query.step() {
            let bundle = try query.withTextBytes(0) { (bytes) throws(CacheError) in try DigestKey(bytes, path: path) }
            if bundle != bundles.last {
                bundles.append(bundle)
                inBundle.removeAll(keepingCapacity: true)
            }
            let object = try query.withTextBytes(1) { (bytes) throws(CacheError) in try DigestKey(bytes, path: path) }
            if !quarantined.isEmpty, quarantined.contains(object) { continue }
            let id: Int32
            if let known = objectIDs[object] {
                id = known
            } else {
                id = Int32(users.count)
                objectIDs[object] = id
                users.append(0)
            }
            guard inBundle.insert(id).inserted else { continue }
            users[Int(id)] += 1
            references.append((Int32(bundles.count - 1), id, query.int(2)))
        }
        var sums = [(unique: Int64, shared: Int64)](repeating: (0, 0), count: bundles.count)
        for reference in references {
            if users[Int(reference.object)] == 1 {
                sums[Int(reference.bundle)].unique += reference.size
            } else {
                sums[Int(reference.bundle)].shared += reference.size
            }
        }
        var result: [Digest: (unique: Int64, shared: Int64)] = [:]
        for (index, key) in bundles.enumerated() { result[key.digest] = sums[index] }
        return result
    }
}

/// A digest as stored in the index (`sha256:<64 hex>`), read in place as four words: a cheap
/// dictionary key for scans over every file row.
struct DigestKey: Hashable {
    var words: (UInt64, UInt64, UInt64, UInt64)
    private static let prefix = Array(Digest.prefix.utf8)

    /// - Throws: ``CacheError/Code/storage`` when the text is not a digest (a damaged index).
    init(_ text: UnsafeRawBufferPointer, path: String) throws(CacheError) {
        let prefix = DigestKey.prefix
        guard text.count == prefix.count + 64, text.prefix(prefix.count).elementsEqual(prefix) else {
            throw CacheError(.storage, "the cache index holds a damaged digest '\(String(decoding: text.prefix(80), as: UTF8.self))'; purge the cache", path: path)
        }
        // Each character through a table (16 for anything not lowercase hex), checked once.
        var invalid: UInt8 = 0
        func word(_ part: Int) -> UInt64 {
            var word: UInt64 = 0
            let start = prefix.count + part * 16
            for index in start..<(start + 16) {
                let value = Self.hexValues[Int(text[index])]
                invalid |= value & 0x10
                word = word << 4 | UInt64(value & 0x0F)
            }
            return word
        }
        words = (word(0), word(1), word(2), word(3))
        guard invalid == 0 else {
            throw CacheError(.storage, "the cache index holds a damaged digest '\(String(decoding: text.prefix(80), as: UTF8.self))'; purge the cache", path: path)
        }
    }

    /// The value of each byte as a lowercase hex digit, or 16.
    private static let hexValues: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        default: 16
        }
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.words == rhs.words }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    /// The digest it names.
    var digest: Digest {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Digest(bytes: bytes)
    }
}
