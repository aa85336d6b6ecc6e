/// The header of the gzip members ``GzipMemberWriter`` writes: RFC 1952's 10 bytes with FEXTRA
/// set, then one extra subfield (§2.3.1.1) that holds the member's total size, so a reader
/// finds where each member starts without inflating the one before (as BGZF does, but with a
/// 4-byte size: our members can be larger than 64 KiB).
///
/// ```
/// 1f 8b 08 04  00 00 00 00  XFL OS  08 00  'L' 'R'  04 00  <size: UInt32 LE>
/// ID1 ID2 CM FLG   MTIME            XLEN   SI1 SI2  LEN    header + deflate + trailer
/// ```
///
/// Tools that do not know the subfield skip it (RFC 1952: "a decompressor may ignore
/// subfields it does not recognise"): gzip, tar, libarchive and zlib read these members as
/// any other.
package enum GzipMemberHeader {
    /// RFC 1952's header with no optional field, as libdeflate writes it.
    static let plainSize = 10
    /// The header with the extra field: XLEN (2 bytes), SI1 SI2, LEN (2 bytes), the size.
    package static let size = 20
    /// CRC-32 and ISIZE, each 4 bytes little-endian.
    static let trailerSize = 8
    /// The subfield's ID: "LR", for Larder.
    static let subfieldID: (UInt8, UInt8) = (UInt8(ascii: "L"), UInt8(ascii: "R"))

    /// The most input bytes ``GzipMemberWriter`` puts in one member.
    static let maximumPieceSize = 4 << 20
    /// The most uncompressed bytes (ISIZE) a reader accepts in one member: the writer's largest
    /// piece with room to spare, and a bound on the memory one member can take.
    package static let maximumUncompressedSize = 16 << 20
    /// The most bytes a reader accepts for one whole member: stored (uncompressible) data of
    /// ``maximumUncompressedSize`` bytes is 5 bytes larger per 64 KiB block, plus the header
    /// and trailer.
    static let maximumMemberSize = maximumUncompressedSize + (64 << 10)

    /// The fixed bytes of the header, by position (MTIME, XFL, OS and the size may be anything).
    private static let fixed: [(Int, UInt8)] = [
        (0, 0x1f), (1, 0x8b), (2, 8), (3, 0x04), (10, 8), (11, 0), (12, subfieldID.0), (13, subfieldID.1), (14, 4), (15, 0),
    ]

    /// Turns the member libdeflate wrote 10 bytes into `member` (its plain header at 10..<20)
    /// into one with the size field: the plain header moves to the front with FEXTRA set, and
    /// the extra field takes its place.
    static func stamp(_ member: inout [UInt8]) throws(FormatError) {
        guard member.count >= size + trailerSize, member[plainSize] == 0x1f, member[plainSize + 1] == 0x8b,
            member[plainSize + 2] == 8, member[plainSize + 3] == 0
        else {
            throw FormatError(.compression, "libdeflate wrote a gzip header with optional fields; cannot add the member size")
        }
        guard member.count <= Int(UInt32.max) else {
            throw FormatError(.compression, "a gzip member of \(member.count) bytes does not fit the 4-byte size field")
        }
        for offset in 0..<plainSize { member[offset] = member[plainSize + offset] }
        member[3] = 0x04  // FLG: FEXTRA
        member[10] = 8  // XLEN, little-endian: one subfield of 4 + 4 bytes
        member[11] = 0
        member[12] = subfieldID.0
        member[13] = subfieldID.1
        member[14] = 4  // LEN, little-endian
        member[15] = 0
        let total = UInt32(member.count)
        for byte in 0..<4 { member[16 + byte] = UInt8(truncatingIfNeeded: total >> (8 * UInt32(byte))) }
    }

    /// The member's total size when `bytes` (at least ``size`` of them) start with this
    /// header; nil for anything else (another gzip header, other bytes).
    package static func memberSize(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= size, couldStart(UnsafeRawBufferPointer(rebasing: bytes[0..<size])) else { return nil }
        return Int(littleEndian32(bytes, at: 16))
    }

    /// Whether `bytes` (at most ``size`` of them) agree with this header as far as they go: a
    /// stream cut inside a header rather than bytes that are no header.
    static func couldStart(_ bytes: UnsafeRawBufferPointer) -> Bool {
        fixed.allSatisfy { offset, value in offset >= bytes.count || bytes[offset] == value }
    }

    static func littleEndian32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
}
