import Foundation
import LarderFormat

/// The gzip copy of one origin object (`objects/<hex>.gz`), which a static server hands to
/// clients that accept gzip (nginx's `gzip_static`): compressed at level 9 as the object is
/// read, with the deterministic gzip header (no name, no time), and kept only when it saves at
/// least a tenth, so already-compressed media (images, WOFF fonts, video) travel as they are.
final class CompressedCopy {
    /// Objects smaller than this are not worth a second request path.
    static let minimumSize: Int64 = 256

    private let destination: String
    private let size: Int64
    private let output: AtomicFileWriter
    private let writer: ParallelGzipWriter

    /// Nil when the object needs no copy: media that are already compressed, tiny objects, or
    /// a copy that is already there.
    init?(of file: Manifest.File, at destination: String, durable: Bool = true) throws(FormatError) {
        guard TravelSize.mayHaveCompressedCopy(path: file.path, size: file.size), !FileManager.default.fileExists(atPath: destination)
        else { return nil }
        self.destination = destination
        size = file.size
        let output = try AtomicFileWriter(
            folder: (destination as NSString).deletingLastPathComponent, prefix: (destination as NSString).lastPathComponent, durable: durable)
        self.output = output
        writer = ParallelGzipWriter(level: 9, concurrency: file.size > 4 << 20 ? Processors.active : 1) {
            (bytes) throws(FormatError) in try output.write(bytes)
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(FormatError) { try writer.write(bytes) }

    /// Finishes the stream and moves it into place when it saves a tenth or more.
    /// - Returns: whether the copy was kept.
    func commit() throws(FormatError) -> Bool {
        try writer.finish()
        guard TravelSize.keepsCompressedCopy(compressed: Int64(writer.bytesOut), of: size) else { return false }  // the temporary file goes with `output`
        try output.commit(to: destination)
        return true
    }
}
