import CLibdeflate
import Dispatch
import Foundation
import LarderSystem

/// Writes a gzip file as a series of members (RFC 1952 §2.2: "a gzip file consists of a series
/// of members"), one per fixed-size piece of the input, each compressed on its own by libdeflate
/// (`libdeflate_gzip_compress`) on every core. Multi-member gzip is plain gzip: `gzip -d`,
/// `tar -xzf`, libarchive and zlib's `inflate` (reset at each member's end) read it.
///
/// The pieces share nothing (no preset dictionary), so the bytes depend only on the input, the
/// level, the piece size and the libdeflate version: never on the number of threads or their
/// timing. Each member's header is libdeflate's (no name, MTIME 0) with one extra field
/// (FEXTRA, RFC 1952 §2.3.1.1) holding the member's total size (`GzipMemberHeader`), so a
/// reader finds where each member starts without inflating and can inflate them on several
/// threads (`MemberInflater`); readers that do not know the field skip it.
///
/// Pieces made mostly (75%) of bytes written while ``inputIsPrecompressed`` is set (JPEG, PNG,
/// WOFF2 and the like) are compressed at level 1, or stored (deflate's stored blocks,
/// libdeflate's level 0) when their first ``sampleSize`` bytes shrink by less than 3% at level
/// 1 (the tar headers in the sample alone save about 1%): deflate finds next to nothing in
/// such bytes, yet its match finder costs about 9 ms per MB even at level 1 (about 0.3 ms
/// stored); some PNGs do shrink, and keep level 1. So that media and text share few pieces, a
/// piece also ends where the input switches between the two kinds, once it holds
/// ``minimumPieceSize`` bytes. All these choices depend only on the input.
///
/// Memory stays bounded: at most `min(2 × concurrency + 2, 16)` pieces are in flight, each
/// with its output buffer (and its input until it is compressed).
public final class GzipMemberWriter {
    /// Receives compressed bytes, in order, on the thread that calls ``write(_:)`` and
    /// ``finish()``.
    public typealias Sink = (UnsafeRawBufferPointer) throws(FormatError) -> Void

    /// Input bytes per member.
    public static let defaultPieceSize = 1 << 20
    /// A piece ends early where the input switches between precompressed and other bytes only
    /// once it holds this much: smaller members would cost more than mixing does.
    public static let minimumPieceSize = 64 << 10
    /// The bytes of a mostly precompressed piece deflated first to choose between level 1 and
    /// storing it.
    public static let sampleSize = 64 << 10

    private let level: Int32
    private let pieceSize: Int
    private let maxInFlight: Int
    private let sink: Sink
    private let limits: ArchiveReader.Limits?
    private let queue: DispatchQueue?
    private let compressors: CompressorPool

    private var piece: [UInt8] = []
    private var piecePrecompressedBytes = 0
    /// Whether the piece's last bytes were written as precompressed.
    private var pieceEndsPrecompressed = false
    private var pending: [MemberJob] = []
    private var submittedAny = false
    private var finished = false

    /// Whether the bytes written next are already compressed (images, WOFF fonts, media).
    public var inputIsPrecompressed = false

    /// Bytes given to ``write(_:)`` so far.
    public private(set) var bytesIn: UInt64 = 0
    /// Compressed bytes handed to the sink so far.
    public private(set) var bytesOut: UInt64 = 0
    /// Input bytes whose members were handed to the sink.
    private var bytesInWritten: UInt64 = 0
    /// The input bytes of the member the readers' ratio limit refused, once one was.
    public private(set) var refusedInput: Range<UInt64>?
    /// The libdeflate level of each member written so far, in order (0: stored); for tests.
    package private(set) var memberLevels: [Int32] = []

    /// - Parameters:
    ///   - level: compression level, 1 to 9 (libdeflate's scale matches zlib's there).
    ///   - pieceSize: input bytes per member (at least 64 KiB, at most 4 MiB: readers refuse
    ///     members of more than 16 MiB).
    ///   - concurrency: worker threads; 1 compresses on the calling thread.
    ///   - limits: when given, the stream must stay within the compression ratio readers with
    ///     these limits accept (``ArchiveReader/Limits/admitsRatio(uncompressed:compressed:)``,
    ///     counting every input byte, tar headers too, at the end of each member): a member
    ///     past it is not handed to the sink, and ``write(_:)`` or ``finish()`` throws.
    ///   - sink: receives the compressed stream.
    public init(
        level: Int, pieceSize: Int = defaultPieceSize,
        concurrency: Int = Processors.active, admitting limits: ArchiveReader.Limits? = nil,
        sink: @escaping Sink
    ) {
        precondition((1...9).contains(level), "gzip level must be 1 to 9")
        precondition(pieceSize >= 64 << 10, "pieces must be at least 64 KiB")
        precondition(pieceSize <= GzipMemberHeader.maximumPieceSize, "pieces must be at most 4 MiB")
        self.level = Int32(level)
        self.pieceSize = pieceSize
        self.maxInFlight = min(max(1, concurrency) * 2 + 2, 16)
        self.sink = sink
        self.limits = limits
        self.queue = concurrency > 1 ? DispatchQueue(label: "larder.gzip-members", attributes: .concurrent) : nil
        self.compressors = CompressorPool()
        piece.reserveCapacity(pieceSize)
    }

    /// Adds bytes to the stream.
    /// - Throws: ``FormatError`` from compression or from the sink, or
    ///   ``FormatError/Code/limitExceeded`` when the stream compresses past the readers'
    ///   ratio (``refusedInput`` says where).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(FormatError) {
        precondition(!finished, "write after finish")
        guard !bytes.isEmpty else { return }
        if piece.count >= Self.minimumPieceSize, inputIsPrecompressed != pieceEndsPrecompressed { try submit() }
        pieceEndsPrecompressed = inputIsPrecompressed
        var offset = 0
        while offset < bytes.count {
            if piece.count == pieceSize { try submit() }
            let count = min(pieceSize - piece.count, bytes.count - offset)
            piece.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            if inputIsPrecompressed { piecePrecompressedBytes += count }
            offset += count
        }
        bytesIn += UInt64(bytes.count)
    }

    /// Compresses what is left (an empty input still makes one, empty, member) and waits for
    /// all workers.
    public func finish() throws(FormatError) {
        precondition(!finished, "finish called twice")
        if !piece.isEmpty || !submittedAny { try submit() }
        while !pending.isEmpty { try drainOne() }
        finished = true
    }

    private func submit() throws(FormatError) {
        let mostlyPrecompressed = piecePrecompressedBytes * 4 >= piece.count * 3 && !piece.isEmpty
        let job = MemberJob(input: piece, level: mostlyPrecompressed ? 1 : level, storeIfIncompressible: mostlyPrecompressed)
        piecePrecompressedBytes = 0
        piece = []
        piece.reserveCapacity(pieceSize)
        submittedAny = true
        pending.append(job)
        if let queue {
            let compressors = self.compressors
            queue.async { job.run(compressors: compressors) }
        } else {
            job.run(compressors: compressors)
        }
        while pending.count >= maxInFlight { try drainOne() }
    }

    private func drainOne() throws(FormatError) {
        let job = pending.removeFirst()
        job.done.wait()
        if let error = job.error { throw error }
        let input = bytesInWritten..<bytesInWritten + UInt64(job.inputCount)
        if let limits, !limits.admitsRatio(uncompressed: Int64(input.upperBound), compressed: Int64(bytesOut) + Int64(job.output.count)) {
            refusedInput = input
            throw FormatError(
                .limitExceeded,
                "the archive would compress \(input.upperBound) bytes into \(Int(bytesOut) + job.output.count), past the "
                    + "\(limits.maximumRatio):1 ratio readers accept (they refuse such archives as gzip bombs)")
        }
        try FormatError.typed { try job.output.withUnsafeBytes { try sink($0) } }
        bytesInWritten = input.upperBound
        bytesOut += UInt64(job.output.count)
        memberLevels.append(job.usedLevel)
    }
}

/// A piece waiting to be compressed, and then its member. Written by one worker, read by the
/// producer only after `done` is signalled, which orders the two.
private final class MemberJob: @unchecked Sendable {
    /// Released once compressed.
    var input: [UInt8]
    let inputCount: Int
    let level: Int32
    /// Stored instead when a sample barely shrinks at `level`.
    let storeIfIncompressible: Bool
    var output: [UInt8] = []
    /// The level the member was compressed at.
    var usedLevel: Int32
    var error: FormatError?
    let done = DispatchSemaphore(value: 0)

    init(input: [UInt8], level: Int32, storeIfIncompressible: Bool) {
        usedLevel = level
        self.input = input
        inputCount = input.count
        self.level = level
        self.storeIfIncompressible = storeIfIncompressible
    }

    func run(compressors: CompressorPool) {
        defer { done.signal() }
        do throws(FormatError) {
            var level = self.level
            if storeIfIncompressible {
                let sampler = try compressors.take(level: level)
                defer { compressors.give(sampler) }
                let sample = min(input.count, GzipMemberWriter.sampleSize)
                let deflated = input.withUnsafeBytes { sampler.deflatedSize(UnsafeRawBufferPointer(rebasing: $0[0..<sample])) }
                if deflated * 100 > sample * 97 { level = 0 }
            }
            usedLevel = level
            let compressor = try compressors.take(level: level)
            defer { compressors.give(compressor) }
            output = try compressor.gzip(input)
            input = []
        } catch {
            self.error = error
        }
    }
}

/// One libdeflate compressor (`libdeflate_alloc_compressor`), freed on `deinit`. Not
/// thread-safe: the pool lends it to one worker at a time.
private final class LibdeflateCompressor: @unchecked Sendable {
    let level: Int32
    private let handle: OpaquePointer

    init(level: Int32) throws(FormatError) {
        guard let handle = libdeflate_alloc_compressor(level) else {
            throw FormatError(.compression, "libdeflate_alloc_compressor(\(level)) failed: out of memory")
        }
        self.level = level
        self.handle = handle
    }

    deinit { libdeflate_free_compressor(handle) }

    /// The size of `bytes` as raw deflate (`libdeflate_deflate_compress`).
    func deflatedSize(_ bytes: UnsafeRawBufferPointer) -> Int {
        let bound = libdeflate_deflate_compress_bound(handle, bytes.count)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: bound, alignment: 16)
        defer { scratch.deallocate() }
        return libdeflate_deflate_compress(handle, bytes.baseAddress, bytes.count, scratch.baseAddress, bound)
    }

    /// One complete gzip member of `input` (`libdeflate_gzip_compress`) carrying its own size
    /// (`GzipMemberHeader`), in an array no larger than it (it waits in the queue until its
    /// turn to be written).
    ///
    /// libdeflate writes its 10-byte header 10 bytes into the buffer; that header, with FEXTRA
    /// set, moves to the front and the extra field takes its place, so the deflate data and the
    /// trailer (CRC-32, ISIZE) stay where libdeflate wrote them.
    func gzip(_ input: [UInt8]) throws(FormatError) -> [UInt8] {
        let extra = GzipMemberHeader.size - GzipMemberHeader.plainSize
        let bound = libdeflate_gzip_compress_bound(handle, input.count) + extra
        let output = input.withUnsafeBytes { raw in
            [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
                let written = libdeflate_gzip_compress(
                    handle, raw.baseAddress, raw.count, buffer.baseAddress! + extra, buffer.count - extra)
                count = written == 0 ? 0 : written + extra
            }
        }
        guard !output.isEmpty else {
            throw FormatError(.compression, "libdeflate_gzip_compress found its own bound too small for \(input.count) bytes")
        }
        var member = output.count * 4 < bound * 3 ? Array(output[...]) : output
        try GzipMemberHeader.stamp(&member)
        return member
    }
}

/// Compressors kept for reuse by level, so a piece costs no allocation.
private final class CompressorPool: Sendable {
    private let idle = Locked<[Int32: [LibdeflateCompressor]]>([:])

    func take(level: Int32) throws(FormatError) -> LibdeflateCompressor {
        if let reused = idle.withLock({ $0[level]?.popLast() }) { return reused }
        return try LibdeflateCompressor(level: level)
    }

    func give(_ compressor: LibdeflateCompressor) {
        idle.withLock { $0[compressor.level, default: []].append(compressor) }
    }
}
