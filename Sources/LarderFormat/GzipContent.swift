import CZlib

/// What a gzip file stands for, hashed as it inflates (zlib's `inflate`, one member after
/// another): an origin's gzip copy `objects/<hex>.gz` is named by the SHA-256 of the object it
/// compresses, and is checked against that name before it leaves the machine.
public enum GzipContent {
    /// The SHA-256 and size of everything a gzip file inflates to, from where it is read to its
    /// end.
    /// - Parameters:
    ///   - limit: the most inflated bytes read: past it the file is refused, so a gzip bomb
    ///     costs no more than `limit` bytes of hashing.
    ///   - path: the file's name, for messages.
    ///   - source: supplies the gzip bytes (64 KiB at a time; memory stays bounded), 0 at the
    ///     end, like an ``ArchiveReader/Source``.
    /// - Throws: ``FormatError/Code/compression`` for bytes that are not gzip,
    ///   ``FormatError/Code/truncated`` for a stream that ends early,
    ///   ``FormatError/Code/limitExceeded`` past `limit`, or what `source` throws; each naming
    ///   the file.
    public static func digest(limit: Int64, path: String, source: ArchiveReader.Source) throws(FormatError) -> (digest: Digest, size: Int64) {
        var stream = z_stream()
        guard larder_inflateInit2(&stream, 15 + 16) == Z_OK else { throw FormatError(.compression, "inflateInit2 failed", path: path) }
        defer { inflateEnd(&stream) }
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
        defer {
            input.deallocate()
            output.deallocate()
        }
        let hasher = SHA256Hasher()
        var size: Int64 = 0
        var inMember = true  // inside a member (the file must not end here)
        while true {
            let count = try source(input)
            if count == 0 {
                guard !inMember else { throw FormatError(.truncated, "the gzip stream ends inside a member", path: path) }
                break
            }
            stream.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(count)
            while stream.avail_in > 0 {
                if !inMember {
                    // Another member follows the last one's trailer.
                    guard inflateReset(&stream) == Z_OK else { throw FormatError(.compression, "inflateReset failed", path: path) }
                    inMember = true
                }
                stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(output.count)
                let status = inflate(&stream, Z_NO_FLUSH)
                let produced = output.count - Int(stream.avail_out)
                size += Int64(produced)
                guard size <= limit else {
                    throw FormatError(.limitExceeded, "inflates to more than \(limit) bytes", path: path)
                }
                hasher.update(UnsafeRawBufferPointer(rebasing: output[0..<produced]))
                switch status {
                case Z_STREAM_END: inMember = false
                case Z_OK: continue
                case Z_BUF_ERROR where produced > 0 || stream.avail_in == 0: continue
                default:
                    let detail = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                    throw FormatError(.compression, "is not a gzip stream: \(detail)", path: path)
                }
            }
        }
        return (hasher.finalize(), size)
    }
}
