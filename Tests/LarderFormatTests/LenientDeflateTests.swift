import CZlib
import Foundation
import Testing
@testable import LarderFormat

/// A sized member whose deflate data zlib refuses ("invalid distance code" after 257 bytes)
/// and libdeflate reads (its own tests say it may read an invalid stream as a valid one and
/// leave corruption to the checksum). Found by the gzip-members fuzz target, whose rule was
/// that the member inflater accepts only what zlib does. It is accepted because its bytes are
/// exactly what its trailer's CRC-32 and size say; the same member with any other CRC is
/// refused, so this leniency cannot let changed bytes through.
@Suite struct LenientDeflateTests {
    /// One member: the sized-member header, 327 bytes of deflate data, a trailer of CRC-32
    /// 0xB0131BEB and ISIZE 6,144.
    static let member = Array(
        Data(
            base64Encoded:
                "H4sIBAAAAAAE/wgATFIEAGMBAADtz4NxIAAQAMC8bZuxbdu2bdu2bdu2bdu2bfSRuelgEcqNcDeS5X6M+HM9abAmO8xRR5qNEH7b"
                + "6UJ/VWqAvZYo823Il+NRnSXJfpbq/+kwwdftTrQXxXqYK/FSXwa82R7UmBPtZij/nQzhf9nqQH1WqIO+FCvxqc+T5V6VKcF2muLv"
                + "8SDe5812lCf5WqgL0WIfetyZ7lQY422myP8cDeB+2mhDfpSrgTwXKfKuy5XhuswQZz1J9vuwH+fjeivSg2w1xJlwoTcdznSXJfpY"
                + "qwnSXwd92B/WWhDvZar8mwoVeNXmSHNepIuxHCf5ud+L9X61GeFOutKfiWC+Fy32VKcF2miLMeIfez2Y71aa4G+lKvwaC+R51mRL"
                + "cZyniTIfJfq+240RAf7whz/84Q9/+MMf/vCHP/zhD3/4wx/+8Ic//OEP/1v4vwHrGxOwABgAAA==")!)

    static func readMember(_ bytes: [UInt8]) throws(FormatError) -> [UInt8] {
        var offset = GzipMemberHeader.size
        let inflater = MemberInflater(
            firstHeader: Array(bytes.prefix(GzipMemberHeader.size)), configuration: .init(concurrency: 1, maxInFlight: 2),
            displayName: "lenient.tar.gz"
        ) { (buffer) throws(FormatError) in
            let count = min(buffer.count, bytes.count - offset)
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.withUnsafeBytes { $0 }[offset..<offset + count]))
            offset += count
            return count
        }
        var output: [UInt8] = []
        while true {
            let block = try inflater.next()
            if block.isEmpty { return output }
            output += block
        }
    }

    static func zlibGunzip(_ bytes: [UInt8]) -> Int32 {
        var stream = z_stream()
        guard larder_inflateInit2(&stream, 15 + 16) == Z_OK else { return Z_STREAM_ERROR }
        defer { inflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: 1 << 16)
        return input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return inflate(&stream, Z_FINISH)
            }
        }
    }

    @Test func zlibRefusesTheMember() {
        #expect(Self.member.count == 355)
        #expect(Self.zlibGunzip(Self.member) == Z_DATA_ERROR)
    }

    @Test func theMemberInflaterReadsExactlyWhatItsTrailerSays() throws {
        let output = try Self.readMember(Self.member)
        #expect(output.count == 6144)
        let crc = output.withUnsafeBytes { UInt32(crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt($0.count))) }
        #expect(crc == 0xB013_1BEB)
    }

    @Test(arguments: [0, 7, 15, 31])
    func anyOtherCRCIsRefused(flipping bit: Int) {
        var damaged = Self.member
        damaged[damaged.count - 8 + bit / 8] ^= UInt8(1 << (bit % 8))
        let error = #expect(throws: FormatError.self) { try Self.readMember(damaged) }
        #expect(error?.code == .malformedArchive, "\(String(describing: error))")
    }
}
