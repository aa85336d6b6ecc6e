import CLibdeflate
import Dispatch
import Foundation
import LarderSystem

/// Inflates a gzip stream of sized members (``GzipMemberHeader``, as ``GzipMemberWriter``
/// writes them) on several threads, handing the uncompressed bytes out in order.
///
/// The source is read sequentially on the calling thread: each member's header gives its
/// size, so the whole member is read without inflating it, and libdeflate
/// (`libdeflate_deflate_decompress_ex`) inflates it on a worker into a buffer of exactly its
/// ISIZE, checking that the deflate data ends where the trailer starts and that the CRC-32
/// matches. Every member must carry the size field, and the bytes after each must be another
/// such member or the end of the stream: a size field that lies (past the end, into another
/// member), a cut stream, a damaged member or trailing bytes are each a typed ``FormatError``,
/// reported in stream order (after the bytes of the members before it).
///
/// Memory stays bounded: at most ``Configuration/maxInFlight`` members are read ahead or held
/// (and, past the first, at most ``Configuration/bytesInFlight`` of their compressed and
/// uncompressed bytes), and a member of more than
/// ``GzipMemberHeader/maximumUncompressedSize`` bytes, or whose whole size is past
/// ``GzipMemberHeader/maximumMemberSize``, is refused (``FormatError/Code/limitExceeded``)
/// before anything is allocated for it.
package final class MemberInflater {
    package struct Configuration: Sendable {
        /// Worker threads; 1 inflates on the calling thread.
        var concurrency: Int
        /// Members read ahead, inflating or inflated, plus the one handed out.
        var maxInFlight: Int
        /// Compressed and uncompressed bytes of the members in flight, past which no more are
        /// read ahead (one member is always allowed).
        var bytesInFlight: Int

        package init(
            concurrency: Int = Processors.active, maxInFlight: Int? = nil,
            bytesInFlight: Int = 32 << 20
        ) {
            self.concurrency = max(1, concurrency)
            self.maxInFlight = max(1, maxInFlight ?? min(self.concurrency * 2 + 2, 16))
            self.bytesInFlight = bytesInFlight
        }

        package static var `default`: Configuration { Configuration() }
    }

    private let source: ArchiveReader.Source
    private let configuration: Configuration
    private let displayName: String?
    private let queue: DispatchQueue?
    private let decompressors = DecompressorPool()

    /// The header of the next member, read and checked; nil once the stream has ended.
    private var nextHeader: [UInt8]?
    /// Members read and given to a worker (or a failure, which ends the stream), in order.
    private var pending: [Slot] = []
    /// The member handed out last, kept until the next call.
    private var current: InflateJob?
    private var bytesHeld = 0
    private var membersRead = 0
    /// The error that ended the stream; every later call throws it again.
    private var failed: FormatError?

    /// Compressed bytes taken from the source so far, read ahead or not (for the reader's
    /// ratio check, as libarchive's gzip filter counts what it has read ahead too).
    package private(set) var compressedBytesRead: Int64 = 0
    /// The most members held at once (read ahead plus handed out); for tests.
    private(set) var peakInFlight = 0

    private enum Slot {
        case member(InflateJob)
        case failure(FormatError)
    }

    /// - Parameters:
    ///   - firstHeader: the stream's first ``GzipMemberHeader/size`` bytes, already read from
    ///     `source` and recognised by ``GzipMemberHeader/memberSize(_:)``.
    package init(firstHeader: [UInt8], configuration: Configuration = .default, displayName: String?, source: @escaping ArchiveReader.Source) {
        self.source = source
        self.configuration = configuration
        self.displayName = displayName
        self.nextHeader = firstHeader
        self.queue = configuration.concurrency > 1 ? DispatchQueue(label: "larder.gzip-inflate", attributes: .concurrent) : nil
    }

    /// Waits for the workers still inflating members nobody will read (the reader stopped
    /// early), so none outlives the reader.
    deinit {
        for slot in pending { if case .member(let job) = slot { job.done.wait() } }
    }

    /// The next member's uncompressed bytes, valid until the next call; empty at the end of
    /// the stream. Members with no bytes are skipped.
    package func next() throws(FormatError) -> UnsafeRawBufferPointer {
        if let failed { throw failed }
        if let current { bytesHeld -= current.bytesHeld }
        current = nil
        while true {
            fill()
            guard !pending.isEmpty else { return UnsafeRawBufferPointer(start: nil, count: 0) }
            let job: InflateJob
            switch pending.removeFirst() {
            case .failure(let error):
                failed = error
                throw error
            case .member(let next):
                job = next
            }
            current = job
            fill()
            job.done.wait()
            if let error = job.error {
                failed = error
                nextHeader = nil
                throw error
            }
            if job.uncompressedSize > 0 { return UnsafeRawBufferPointer(job.output) }
            bytesHeld -= job.bytesHeld
            current = nil
        }
    }

    /// Reads members ahead and hands them to workers while the bounds allow.
    private func fill() {
        while let header = nextHeader {
            let held = pending.count + (current == nil ? 0 : 1)
            guard held < configuration.maxInFlight else { return }
            let size = header.withUnsafeBytes { GzipMemberHeader.memberSize($0) } ?? 0
            guard held == 0 || bytesHeld + size <= configuration.bytesInFlight else { return }
            do throws(FormatError) {
                let job = try readMember(header: header, size: size)
                pending.append(.member(job))
                bytesHeld += job.bytesHeld
                peakInFlight = max(peakInFlight, pending.count + (current == nil ? 0 : 1))
                if let queue {
                    let decompressors = self.decompressors
                    queue.async { job.run(decompressors: decompressors) }
                } else {
                    job.run(decompressors: decompressors)
                }
            } catch {
                pending.append(.failure(error))
                nextHeader = nil
            }
        }
    }

    /// Reads the member that `header` starts, and the header of the one after it.
    private func readMember(header: [UInt8], size: Int) throws(FormatError) -> InflateJob {
        let index = membersRead
        membersRead += 1
        let minimum = GzipMemberHeader.size + 2 + GzipMemberHeader.trailerSize
        guard size >= minimum else {
            throw failure(.malformedArchive, "gzip member \(index) declares \(size) bytes, fewer than a member can hold")
        }
        guard size <= GzipMemberHeader.maximumMemberSize else {
            throw failure(.limitExceeded, "gzip member \(index) declares \(size) bytes, more than the \(GzipMemberHeader.maximumMemberSize) a member may take")
        }
        let member = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        var handedOver = false
        defer { if !handedOver { member.deallocate() } }
        header.withUnsafeBytes { member.copyMemory(from: $0) }
        let filled = try readFully(UnsafeMutableRawBufferPointer(rebasing: member[GzipMemberHeader.size...]))
        guard filled == size - GzipMemberHeader.size else {
            throw failure(.truncated, "the archive ends inside gzip member \(index) (\(GzipMemberHeader.size + filled) of \(size) bytes)")
        }
        try readNextHeader(after: index)

        let trailer = size - GzipMemberHeader.trailerSize
        let crc = GzipMemberHeader.littleEndian32(UnsafeRawBufferPointer(member), at: trailer)
        let uncompressed = Int(GzipMemberHeader.littleEndian32(UnsafeRawBufferPointer(member), at: trailer + 4))
        guard uncompressed <= GzipMemberHeader.maximumUncompressedSize else {
            throw failure(
                .limitExceeded,
                "gzip member \(index) declares \(uncompressed) uncompressed bytes, more than the \(GzipMemberHeader.maximumUncompressedSize) a member may hold")
        }
        handedOver = true
        return InflateJob(
            index: index, member: member, crc: crc, uncompressedSize: uncompressed,
            describe: { [displayName] code, message in FormatError(code, message, path: displayName) })
    }

    /// Reads the header that follows member `index`: another sized member, or the end.
    private func readNextHeader(after index: Int) throws(FormatError) {
        var header = [UInt8](repeating: 0, count: GzipMemberHeader.size)
        let count = try FormatError.typed { try header.withUnsafeMutableBytes { try readFully($0) } }
        if count == 0 {
            nextHeader = nil
            return
        }
        let known = header.withUnsafeBytes { GzipMemberHeader.memberSize($0) } != nil
        if known {
            nextHeader = header
            return
        }
        if count < GzipMemberHeader.size, header.withUnsafeBytes({ GzipMemberHeader.couldStart(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }) {
            throw failure(.truncated, "the archive ends inside the header of gzip member \(index + 1)")
        }
        throw failure(
            .malformedArchive,
            "the bytes after gzip member \(index) are not a gzip member with its size: the member's size field is wrong, or the archive has bytes after its last member")
    }

    /// Fills `buffer` from the source unless it ends first. - Returns: the bytes read.
    private func readFully(_ buffer: UnsafeMutableRawBufferPointer) throws(FormatError) -> Int {
        let filled = try Self.readFully(buffer, from: source)
        compressedBytesRead += Int64(filled)
        return filled
    }

    /// Fills `buffer` from `source` unless it ends first. - Returns: the bytes read.
    static func readFully(_ buffer: UnsafeMutableRawBufferPointer, from source: ArchiveReader.Source) throws(FormatError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try source(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    private func failure(_ code: FormatError.Code, _ message: String) -> FormatError {
        FormatError(code, message, path: displayName)
    }
}

/// One member read whole, then inflated by a worker. Written by that worker, read by the
/// consumer only after `done` is signalled, which orders the two.
private final class InflateJob: @unchecked Sendable {
    let index: Int
    /// The whole member; released once inflated.
    private var member: UnsafeMutableRawBufferPointer?
    let memberSize: Int
    let crc: UInt32
    let uncompressedSize: Int
    let output: UnsafeMutableRawBufferPointer
    var error: FormatError?
    let done = DispatchSemaphore(value: 0)
    private let describe: @Sendable (FormatError.Code, String) -> FormatError

    /// What this member counts against the bytes in flight.
    var bytesHeld: Int { memberSize + uncompressedSize }

    init(
        index: Int, member: UnsafeMutableRawBufferPointer, crc: UInt32, uncompressedSize: Int,
        describe: @escaping @Sendable (FormatError.Code, String) -> FormatError
    ) {
        self.index = index
        self.member = member
        self.memberSize = member.count
        self.crc = crc
        self.uncompressedSize = uncompressedSize
        self.output = .allocate(byteCount: max(1, uncompressedSize), alignment: 16)
        self.describe = describe
    }

    deinit {
        member?.deallocate()
        output.deallocate()
    }

    func run(decompressors: DecompressorPool) {
        defer {
            member?.deallocate()
            member = nil
            done.signal()
        }
        guard let member else { return }
        let decompressor = decompressors.take()
        defer { decompressors.give(decompressor) }
        let deflateStart = GzipMemberHeader.size
        let deflateCount = memberSize - GzipMemberHeader.size - GzipMemberHeader.trailerSize
        var consumed = 0
        let result = libdeflate_deflate_decompress_ex(
            decompressor.handle, member.baseAddress! + deflateStart, deflateCount, output.baseAddress, uncompressedSize, &consumed, nil)
        switch result {
        case LIBDEFLATE_SUCCESS:
            break
        case LIBDEFLATE_SHORT_OUTPUT:
            error = describe(.malformedArchive, "gzip member \(index) inflates to fewer bytes than its trailer's \(uncompressedSize)")
            return
        case LIBDEFLATE_INSUFFICIENT_SPACE:
            error = describe(.malformedArchive, "gzip member \(index) inflates to more bytes than its trailer's \(uncompressedSize)")
            return
        default:
            error = describe(.malformedArchive, "gzip member \(index) holds invalid deflate data")
            return
        }
        guard consumed == deflateCount else {
            error = describe(
                .malformedArchive, "gzip member \(index)'s deflate data ends \(deflateCount - consumed) bytes before its trailer")
            return
        }
        let actual = UInt32(libdeflate_crc32(0, output.baseAddress, uncompressedSize))
        if actual != crc {
            error = describe(.malformedArchive, "gzip member \(index) fails its CRC-32 check (damaged data)")
        }
    }
}

/// One libdeflate decompressor (`libdeflate_alloc_decompressor`), freed on `deinit`. Not
/// thread-safe: the pool lends it to one worker at a time.
private final class LibdeflateDecompressor: @unchecked Sendable {
    let handle: OpaquePointer

    init() {
        guard let handle = libdeflate_alloc_decompressor() else { fatalError("libdeflate_alloc_decompressor: out of memory") }
        self.handle = handle
    }

    deinit { libdeflate_free_decompressor(handle) }
}

/// Decompressors kept for reuse, so a member costs no allocation of one.
private final class DecompressorPool: Sendable {
    private let idle = Locked<[LibdeflateDecompressor]>([])

    func take() -> LibdeflateDecompressor {
        idle.withLock { $0.popLast() } ?? LibdeflateDecompressor()
    }

    func give(_ decompressor: LibdeflateDecompressor) {
        idle.withLock { $0.append(decompressor) }
    }
}
