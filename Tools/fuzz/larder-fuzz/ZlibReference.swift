import CZlib

/// zlib's reading of a gzip file (RFC 1952: a series of members), the reference the member
/// inflater is held to: whatever ``MemberInflater`` accepts, zlib must inflate to the same bytes.
enum ZlibReference {
    /// The bytes of every member, nil when zlib refuses the stream, it ends inside a member, or
    /// it would inflate to more than `limit` bytes.
    static func gunzip(_ input: UnsafeRawBufferPointer, limit: Int) -> [UInt8]? {
        guard !input.isEmpty else { return [] }
        var stream = z_stream()
        guard larder_inflateInit2(&stream, 15 + 16) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        while true {
            let (status, produced) = buffer.withUnsafeMutableBytes { raw -> (Int32, Int) in
                stream.next_out = raw.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(raw.count)
                let status = inflate(&stream, Z_NO_FLUSH)
                return (status, raw.count - Int(stream.avail_out))
            }
            output += buffer[0..<produced]
            guard output.count <= limit else { return nil }
            switch status {
            case Z_STREAM_END:
                if stream.avail_in == 0 { return output }
                // Another member follows.
                guard inflateReset(&stream) == Z_OK else { return nil }
            case Z_OK:
                // Out of input inside a member: a cut stream.
                if stream.avail_in == 0 && produced == 0 { return nil }
            default:
                return nil
            }
        }
    }
}
