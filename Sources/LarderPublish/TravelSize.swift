import LarderFormat

/// The bytes an object costs on the wire when a device fetches it by objects from an origin
/// `larder publish` wrote: its gzip copy (level 9) where the publisher keeps one (not already
/// compressed media, at least 256 bytes, saving a tenth or more), its
/// own bytes otherwise. HTTP headers are not counted.
public enum TravelSize {
    /// Whether the publisher would consider a gzip copy of a file at `path` of `size` bytes.
    public static func mayHaveCompressedCopy(path: String, size: Int64) -> Bool {
        !MediaType.isPrecompressed(path) && size >= CompressedCopy.minimumSize
    }

    /// The publisher's rule: a copy is kept when it saves a tenth or more.
    public static func keepsCompressedCopy(compressed: Int64, of size: Int64) -> Bool {
        compressed * 10 <= size * 9
    }

    /// The wire size of an object with these bytes at `path`, compressed here as the
    /// publisher would.
    /// - Throws: `FormatError` when compression fails.
    public static func of(_ bytes: [UInt8], path: String) throws(FormatError) -> Int64 {
        let size = Int64(bytes.count)
        guard mayHaveCompressedCopy(path: path, size: size) else { return size }
        let writer = ParallelGzipWriter(level: 9, concurrency: 1) { (_) throws(FormatError) in }
        let written: Result<Void, FormatError> = bytes.withUnsafeBytes { raw in
            Result { () throws(FormatError) in
                try writer.write(raw)
                try writer.finish()
            }
        }
        try written.get()
        let compressed = Int64(writer.bytesOut)
        return keepsCompressedCopy(compressed: compressed, of: size) ? compressed : size
    }
}
