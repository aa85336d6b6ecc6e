import CZlib

extension FaultOrigin {
    /// A valid gzip stream (RFC 1952) that inflates to `inflatedSize` zero bytes, built in
    /// milliseconds and about a thousand times smaller (1 GiB ≈ 1 MB): serve it with
    /// `Content-Encoding: gzip` to see whether a client inflates what it did not ask for.
    ///
    /// One MiB of zeros is deflated once (zlib level 9, ending on a byte boundary with
    /// `Z_SYNC_FLUSH`) and those blocks are repeated: each refers only to zeros, so the copies
    /// join into one deflate stream. The remainder ends it, and the CRC-32 of all the zeros is
    /// joined with `crc32_combine`, so nothing the size of the inflated data is ever made.
    public static func gzipBomb(inflatedSize: Int) -> [UInt8] {
        precondition(inflatedSize >= 0, "gzipBomb: a negative size")
        let piece = 1 << 20
        let zeros = [UInt8](repeating: 0, count: piece)
        let (pieces, rest) = inflatedSize.quotientAndRemainder(dividingBy: piece)

        // Header: magic, deflate, no flags, no time, no extra flags, Unix.
        var output: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]
        if pieces > 0 {
            let blocks = deflateZeros(piece, finish: false)
            output.reserveCapacity(output.count + blocks.count * pieces + 64)
            for _ in 0..<pieces { output.append(contentsOf: blocks) }
        }
        output.append(contentsOf: deflateZeros(rest, finish: true))

        let crc: uLong = zeros.withUnsafeBufferPointer { buffer in
            let pieceCRC = crc32_z(0, buffer.baseAddress, piece)
            var crc: uLong = 0
            for _ in 0..<pieces { crc = crc32_combine(crc, pieceCRC, off_t(piece)) }
            return crc32_combine(crc, crc32_z(0, buffer.baseAddress, rest), off_t(rest))
        }
        for value in [UInt32(truncatingIfNeeded: crc), UInt32(truncatingIfNeeded: inflatedSize)] {
            withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) }
        }
        return output
    }

    /// Raw deflate of `count` zeros from a fresh stream: blocks ending on a byte boundary that a
    /// later block may follow, or (with `finish`) the stream's final block.
    private static func deflateZeros(_ count: Int, finish: Bool) -> [UInt8] {
        var stream = z_stream()
        let status = larder_deflateInit2(&stream, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY)
        precondition(status == Z_OK, "gzipBomb: deflateInit2 failed with zlib status \(status)")
        defer { deflateEnd(&stream) }
        let input = [UInt8](repeating: 0, count: count)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(count))) + 64)
        let produced = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                let status = deflate(&stream, finish ? Z_FINISH : Z_SYNC_FLUSH)
                let done = finish ? status == Z_STREAM_END : (status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0)
                precondition(done, "gzipBomb: deflate did not complete in one call (zlib status \(status))")
                return target.count - Int(stream.avail_out)
            }
        }
        return Array(output[0..<produced])
    }
}
