import CZlib

/// One zlib raw-deflate stream (`deflateInit2` with window bits -15), reused across blocks with
/// `deflateReset`. It owns its `z_stream` and frees it on `deinit`.
/// Not thread-safe; ``ParallelGzipWriter`` lends each stream to one worker at a time.
final class DeflateStream: @unchecked Sendable {
    private var stream = z_stream()
    let level: Int32
    let huffmanOnly: Bool

    /// - Parameter huffmanOnly: entropy-code without looking for matches (`Z_HUFFMAN_ONLY`),
    ///   for data that is already compressed, where match finding costs time and saves nothing.
    init(level: Int32, huffmanOnly: Bool = false) throws(FormatError) {
        self.level = level
        self.huffmanOnly = huffmanOnly
        let strategy = huffmanOnly ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY
        let status = larder_deflateInit2(&stream, level, Z_DEFLATED, -15, 8, strategy)
        guard status == Z_OK else {
            throw FormatError(.compression, "deflateInit2 failed with zlib status \(status)")
        }
    }

    deinit { deflateEnd(&stream) }

    /// Compresses one block of a larger stream.
    ///
    /// - Parameters:
    ///   - input: the block's bytes.
    ///   - dictionary: up to 32 KiB of the bytes just before the block, so matches may reach
    ///     back across the block boundary (`deflateSetDictionary`).
    ///   - isLast: ends the deflate stream (`Z_FINISH`); otherwise the block ends on a byte
    ///     boundary (`Z_SYNC_FLUSH`) so the next block's output can be appended.
    /// - Returns: the raw deflate bytes.
    func compressBlock(_ input: UnsafeRawBufferPointer, dictionary: UnsafeRawBufferPointer, isLast: Bool) throws(FormatError) -> [UInt8] {
        deflateReset(&stream)
        if let base = dictionary.baseAddress, dictionary.count > 0 {
            let status = deflateSetDictionary(&stream, base.assumingMemoryBound(to: Bytef.self), uInt(dictionary.count))
            guard status == Z_OK else {
                throw FormatError(.compression, "deflateSetDictionary failed with zlib status \(status)")
            }
        }
        var capacity = Int(deflateBound(&stream, uLong(input.count))) + 64
        var output = [UInt8](repeating: 0, count: capacity)
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        var produced = 0
        let flush = isLast ? Z_FINISH : Z_SYNC_FLUSH
        while true {
            let status = output.withUnsafeMutableBytes { buffer -> Int32 in
                stream.next_out = buffer.baseAddress!.advanced(by: produced).assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(capacity - produced)
                let status = deflate(&stream, flush)
                produced = capacity - Int(stream.avail_out)
                return status
            }
            if status == Z_STREAM_END || (status == Z_OK && stream.avail_out > 0 && stream.avail_in == 0 && !isLast) {
                break
            }
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw FormatError(.compression, "deflate failed with zlib status \(status)")
            }
            capacity *= 2
            output.append(contentsOf: repeatElement(0, count: capacity - output.count))
        }
        stream.next_in = nil
        output.removeLast(output.count - produced)
        return output
    }
}
