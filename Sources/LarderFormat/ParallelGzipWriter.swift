import CZlib
import Dispatch
import Foundation
import LarderSystem

/// Writes one gzip stream (RFC 1952), compressing fixed-size blocks on several cores at once.
///
/// Each block is deflated on its own with the 32 KiB before it as a preset dictionary
/// (`deflateSetDictionary`) and ends on a byte boundary (`Z_SYNC_FLUSH`), so the blocks join into
/// one deflate stream whose size stays within a fraction of a percent of single-threaded gzip.
/// Block CRCs are joined with `crc32_combine`. The output depends only on the input, the level
/// and the block size: never on the number of threads or their timing.
///
/// The gzip header carries no name and no timestamp (MTIME 0) and OS 3 (Unix), so equal input
/// gives equal bytes on any machine.
///
/// Blocks made mostly of bytes written while ``inputIsPrecompressed`` is set (JPEG, PNG, WOFF2
/// and the like) are entropy-coded without match finding (`Z_HUFFMAN_ONLY`): deflate finds
/// almost nothing to match in such data, so this saves most of the time at a cost of well under
/// a percent of their size. The choice depends only on the input, so output stays reproducible.
///
/// Memory stays bounded: at most `2 × concurrency + 2` blocks are in flight.
public final class ParallelGzipWriter {
    /// Receives compressed bytes, in order, on the thread that calls ``write(_:)`` and
    /// ``finish()``.
    public typealias Sink = (UnsafeRawBufferPointer) throws(FormatError) -> Void

    public static let defaultBlockSize = 128 * 1024
    static let dictionarySize = 32 * 1024

    private let level: Int32
    private let blockSize: Int
    private let maxInFlight: Int
    private let sink: Sink
    private let queue: DispatchQueue?
    private let streams: StreamPool

    private var block: [UInt8] = []
    private var blockPrecompressedBytes = 0
    private var previousTail: [UInt8] = []
    /// Submitted blocks in stream order; never more than `maxInFlight`.
    private var pending: [CompressionJob] = []
    private var wroteHeader = false
    private var finished = false
    private var crc: UInt32 = 0

    /// Whether the bytes written next are already compressed (images, WOFF fonts, media).
    public var inputIsPrecompressed = false

    /// Bytes given to ``write(_:)`` so far.
    public private(set) var bytesIn: UInt64 = 0
    /// Compressed bytes handed to the sink so far.
    public private(set) var bytesOut: UInt64 = 0

    /// - Parameters:
    ///   - level: zlib compression level, 1 to 9.
    ///   - blockSize: bytes per independently compressed block (at least 32 KiB).
    ///   - concurrency: worker threads; 1 compresses on the calling thread.
    ///   - sink: receives the compressed stream.
    public init(
        level: Int, blockSize: Int = defaultBlockSize,
        concurrency: Int = Processors.active, sink: @escaping Sink
    ) {
        precondition((1...9).contains(level), "gzip level must be 1 to 9")
        precondition(blockSize >= Self.dictionarySize, "blocks must be at least 32 KiB")
        self.level = Int32(level)
        self.blockSize = blockSize
        self.maxInFlight = max(1, concurrency) * 2 + 2
        self.sink = sink
        self.queue = concurrency > 1 ? DispatchQueue(label: "larder.gzip", attributes: .concurrent) : nil
        self.streams = StreamPool(level: Int32(level))
        block.reserveCapacity(blockSize)
    }

    /// Adds bytes to the stream.
    /// - Throws: ``FormatError`` from compression or from the sink.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FormatError) {
        precondition(!finished, "write after finish")
        var offset = 0
        while offset < bytes.count {
            if block.count == blockSize { try submit(isLast: false) }
            let count = min(blockSize - block.count, bytes.count - offset)
            block.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            if inputIsPrecompressed { blockPrecompressedBytes += count }
            offset += count
        }
        bytesIn += UInt64(bytes.count)
    }

    /// Compresses what is left, writes the gzip trailer and waits for all workers.
    public func finish() throws(FormatError) {
        precondition(!finished, "finish called twice")
        try submit(isLast: true)
        while !pending.isEmpty { try drainOne() }
        finished = true
        var trailer = [UInt8]()
        trailer.reserveCapacity(8)
        for shift in stride(from: 0, to: 32, by: 8) { trailer.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        let size = UInt32(truncatingIfNeeded: bytesIn)
        for shift in stride(from: 0, to: 32, by: 8) { trailer.append(UInt8(truncatingIfNeeded: size >> UInt32(shift))) }
        try emit(trailer)
    }

    private func submit(isLast: Bool) throws(FormatError) {
        let huffmanOnly = blockPrecompressedBytes * 4 >= block.count * 3 && !block.isEmpty
        let job = CompressionJob(input: block, dictionary: previousTail, isLast: isLast, huffmanOnly: huffmanOnly)
        blockPrecompressedBytes = 0
        // Every block but the last is full, so its tail is a whole dictionary.
        previousTail = Array(block.suffix(Self.dictionarySize))
        block = []
        block.reserveCapacity(blockSize)
        pending.append(job)
        if let queue {
            let streams = self.streams
            queue.async { job.run(streams: streams) }
        } else {
            job.run(streams: streams)
        }
        while pending.count >= maxInFlight { try drainOne() }
    }

    private func drainOne() throws(FormatError) {
        let job = pending.removeFirst()
        job.done.wait()
        if let error = job.error { throw error }
        crc = UInt32(truncatingIfNeeded: crc32_combine(uLong(crc), uLong(job.crc), off_t(job.input.count)))
        try emit(job.output)
    }

    private func emit(_ bytes: [UInt8]) throws(FormatError) {
        if !wroteHeader {
            wroteHeader = true
            let extraFlags: UInt8 = level == 9 ? 2 : (level == 1 ? 4 : 0)
            let header: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, extraFlags, 3]
            try FormatError.typed { try header.withUnsafeBytes { try sink($0) } }
            bytesOut += UInt64(header.count)
        }
        try FormatError.typed { try bytes.withUnsafeBytes { try sink($0) } }
        bytesOut += UInt64(bytes.count)
    }
}

/// A block waiting to be compressed, and then its result. Written by one worker, read by the
/// producer only after `done` is signalled, which orders the two.
private final class CompressionJob: @unchecked Sendable {
    let input: [UInt8]
    let dictionary: [UInt8]
    let isLast: Bool
    let huffmanOnly: Bool
    var output: [UInt8] = []
    var crc: UInt32 = 0
    var error: FormatError?
    let done = DispatchSemaphore(value: 0)

    init(input: [UInt8], dictionary: [UInt8], isLast: Bool, huffmanOnly: Bool) {
        self.input = input
        self.dictionary = dictionary
        self.isLast = isLast
        self.huffmanOnly = huffmanOnly
    }

    func run(streams: StreamPool) {
        defer { done.signal() }
        do throws(FormatError) {
            let stream = try streams.take(huffmanOnly: huffmanOnly)
            defer { streams.give(stream) }
            try FormatError.typed {
                try input.withUnsafeBytes { raw in
                    crc = UInt32(truncatingIfNeeded: crc32_z(0, raw.baseAddress?.assumingMemoryBound(to: Bytef.self), raw.count))
                    output = try dictionary.withUnsafeBytes { try stream.compressBlock(raw, dictionary: $0, isLast: isLast) }
                }
            }
        } catch {
            self.error = error
        }
    }
}

/// Deflate streams kept for reuse, so each block costs a `deflateReset`, not an allocation.
private final class StreamPool: Sendable {
    private let idle = Locked<(normal: [DeflateStream], huffmanOnly: [DeflateStream])>(([], []))
    private let level: Int32

    init(level: Int32) { self.level = level }

    func take(huffmanOnly: Bool) throws(FormatError) -> DeflateStream {
        let reused = idle.withLock { huffmanOnly ? $0.huffmanOnly.popLast() : $0.normal.popLast() }
        if let reused { return reused }
        return try DeflateStream(level: level, huffmanOnly: huffmanOnly)
    }

    func give(_ stream: DeflateStream) {
        idle.withLock { stream.huffmanOnly ? $0.huffmanOnly.append(stream) : $0.normal.append(stream) }
    }
}
