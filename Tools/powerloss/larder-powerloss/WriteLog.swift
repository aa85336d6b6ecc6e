import Foundation

/// What powerloss-disk logged from the mark `base` on (Tools/powerloss/disk): each write of the
/// image, each range zeroed, each flush and each mark, in the order they reached the "disk".
///
/// Files of a log folder: `base.img` (the image at `base`), `records` (24 bytes each: kind,
/// pad, length, offset in the image, offset in `data`, little-endian) and `data`.
struct WriteLog {
    enum Kind: UInt8 {
        case write = 0x57  // "W"
        case zero = 0x5A  // "Z"
        case flush = 0x46  // "F"
        case mark = 0x4D  // "M"
    }

    struct Record {
        var kind: Kind
        var length: Int
        /// Where in the image (writes and zeroed ranges).
        var offset: Int
        /// Where its bytes are in ``WriteLog/data`` (writes and marks).
        var data: Int
    }

    let folder: String
    let records: [Record]
    let data: Data
    /// The image's size, which is base.img's.
    let imageSize: Int

    /// Reads a log folder.
    /// - Throws: ``ToolError`` when a file is missing or a record is malformed.
    init(folder: String) throws {
        self.folder = folder
        let raw: Data
        do {
            raw = try Data(contentsOf: URL(fileURLWithPath: folder + "/records"))
            data = try Data(contentsOf: URL(fileURLWithPath: folder + "/data"), options: .alwaysMapped)
            imageSize = try FileManager.default.attributesOfItem(atPath: folder + "/base.img")[.size] as? Int ?? 0
        } catch {
            throw ToolError("cannot read the write log in \(folder): \(error.localizedDescription)")
        }
        guard raw.count % 24 == 0 else { throw ToolError("\(folder)/records is not a whole number of records") }
        var records: [Record] = []
        records.reserveCapacity(raw.count / 24)
        try raw.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            for start in stride(from: 0, to: bytes.count, by: 24) {
                guard let kind = Kind(rawValue: bytes[start]) else { throw ToolError("record \(start / 24) has an unknown kind") }
                let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 4, as: UInt32.self)))
                let offset = Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)))
                let dataOffset = Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start + 16, as: UInt64.self)))
                records.append(Record(kind: kind, length: length, offset: offset, data: dataOffset))
            }
        }
        self.records = records
        for (position, record) in records.enumerated() where record.kind == .write || record.kind == .zero {
            guard record.offset + record.length <= imageSize else { throw ToolError("record \(position) writes past the image") }
        }
    }

    /// The text of a mark record.
    func text(of record: Record) -> String {
        String(decoding: data[data.startIndex + record.data..<data.startIndex + record.data + record.length], as: UTF8.self)
    }

    /// The position of the mark `end` (or the log's end): crash points lie in `1...end`.
    var end: Int {
        records.indices.first { records[$0].kind == .mark && text(of: records[$0]) == "end" } ?? records.count
    }
}

/// A failure of the tool itself (bad arguments, a missing file, a mount that fails): never a
/// verdict on a crash state.
struct ToolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
