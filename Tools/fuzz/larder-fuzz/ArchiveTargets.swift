import CZlib
import LarderFormat

/// The archive layers: sized gzip members (``MemberInflater``) and the tar stream
/// (``ArchiveReader``).
enum ArchiveTargets {
    static let gzipMembers = FuzzTarget(
        name: "gzip-members",
        summary: "MemberInflater over sized gzip members; what it accepts, zlib inflates to the same bytes",
        maximumLength: 1 << 17,
        run: { bytes in
            // An odd MTIME (which readers ignore) asks for trailers made right, so that changes
            // to the deflate data reach the framing checks instead of failing the CRC-32.
            if bytes.count > 4, bytes[4] & 1 == 1 {
                MemberTrailers.fixed(bytes).withUnsafeBytes { checkMembers($0) }
            } else {
                checkMembers(bytes)
            }
        },
        seeds: { try SeedSources.gzipMemberStreams() })

    static let archive = FuzzTarget(
        name: "archive",
        summary: "ArchiveReader over tar (header checksums fixed up), gzip or sized members; entries keep every rule",
        maximumLength: 1 << 16,
        run: { bytes in
            if bytes.count >= 2, bytes[0] == 0x1f, bytes[1] == 0x8b {
                checkArchive(Array(bytes))
            } else {
                checkArchive(TarChecksums.fixed(bytes))
            }
        },
        seeds: { try SeedSources.tarStreams() })

    /// Small limits, so bombs and floods are refused in milliseconds.
    static let limits = ArchiveReader.Limits(maximumEntries: 512, maximumTotalBytes: 4 << 20, maximumRatio: 50, ratioFloor: 64 << 10)

    static func checkMembers(_ bytes: UnsafeRawBufferPointer) {
        guard let header = GzipMemberHeader.memberSize(bytes).map({ _ in Array(bytes.prefix(GzipMemberHeader.size)) }) else { return }
        let source = ChunkedSource(bytes, skipping: GzipMemberHeader.size)
        // One worker and a small window: the bounds on members in flight are exercised on
        // every input, and the outcome does not depend on thread timing.
        let inflater = MemberInflater(
            firstHeader: header, configuration: .init(concurrency: 1, maxInFlight: 3, bytesInFlight: 1 << 20),
            displayName: "fuzz.tar.gz", source: source.read)
        var output: [UInt8] = []
        do throws(FormatError) {
            while true {
                let block = try inflater.next()
                if block.isEmpty { break }
                require(block.count <= GzipMemberHeader.maximumUncompressedSize, "a member of \(block.count) bytes")
                output += block
            }
        } catch {
            let codes: Set<FormatError.Code> = [.malformedArchive, .truncated, .limitExceeded]
            require(codes.contains(error.code), "members refused with code \(error.code): \(error)")
            Outcomes.record("refused \(error.code)")
            do throws(FormatError) {
                _ = try inflater.next()
                require(false, "the inflater went on after it failed")
            } catch let again {
                require(again.code == error.code && again.message == error.message, "a second failure differs from the first")
            }
            return
        }
        require(inflater.compressedBytesRead + Int64(GzipMemberHeader.size) == Int64(bytes.count), "accepted without reading every byte")
        guard let reference = ZlibReference.gunzip(bytes, limit: output.count) else {
            // libdeflate reads some deflate data zlib refuses ("invalid distance code": its own
            // tests say it may map an invalid stream to a valid one, leaving corruption to the
            // checksum). What it accepts must then be, member by member, the bytes each
            // trailer's CRC-32 and size describe, which this checks on its own.
            require(MemberTrailers.describe(bytes, output), "the member inflater accepted a stream zlib refuses, and its bytes are not what the trailers say")
            Outcomes.record("accepted, zlib refuses")
            return
        }
        require(reference == output, "the member inflater and zlib inflate to different bytes")
        Outcomes.record("accepted")
    }

    static func checkArchive(_ bytes: [UInt8]) {
        let source = ChunkedSource(bytes)
        var seen = Set<String>()
        var fileBytes: Int64 = 0
        var entries = 0
        do throws(FormatError) {
            let reader = try ArchiveReader(limits: limits, displayName: "fuzz.tar.gz", source: source.read)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while let entry = try reader.next() {
                entries += 1
                require(entries <= limits.maximumEntries, "more entries than the limit")
                do { try BundlePath.validate(entry.path) } catch {
                    require(false, "entry path '\(entry.path)' breaks a path rule: \(error)")
                }
                require(seen.insert(entry.path).inserted, "entry '\(entry.path)' twice")
                guard entry.kind == .file else {
                    require(entry.size == 0, "a folder with a size")
                    continue
                }
                var read: Int64 = 0
                while true {
                    let count = try FormatError.typed { try buffer.withUnsafeMutableBytes { try reader.read(into: $0) } }
                    if count == 0 { break }
                    read += Int64(count)
                }
                require(read == entry.size, "entry '\(entry.path)' gave \(read) of its \(entry.size) bytes")
                fileBytes += read
                require(fileBytes <= limits.maximumTotalBytes, "more bytes than the limit")
            }
        } catch {
            let codes: Set<FormatError.Code> = [
                .malformedArchive, .truncated, .limitExceeded, .invalidPath, .unsupportedEntryType, .duplicateEntry,
            ]
            require(codes.contains(error.code), "archive refused with code \(error.code): \(error)")
            Outcomes.record("refused \(error.code)")
            return
        }
        Outcomes.record("accepted")
    }
}

/// Hands bytes out in pieces of changing sizes (1 byte to 64 KiB), as a network or a file
/// would, so no reader can count on whole headers arriving in one read.
final class ChunkedSource: @unchecked Sendable {
    private let bytes: [UInt8]
    private var offset: Int
    private var step = 0

    init<Bytes: Collection<UInt8>>(_ bytes: Bytes, skipping: Int = 0) {
        self.bytes = Array(bytes)
        self.offset = min(skipping, self.bytes.count)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FormatError) -> Int {
        let sizes = [1 << 16, 7, 4096, 1, 1 << 16, 513]
        step += 1
        let count = min(buffer.count, bytes.count - offset, sizes[step % sizes.count])
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { raw in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count]))
        }
        offset += count
        return count
    }
}

/// ustar header checksums (bytes 148..<156: the octal sum of the header with that field read as
/// spaces), made right, so that libFuzzer's changes to a header's other fields reach the reader
/// instead of failing the checksum every time.
enum TarChecksums {
    static func fixed(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = Array(bytes)
        var block = 0
        while block + 512 <= out.count {
            if out[block + 257..<block + 262].elementsEqual("ustar".utf8) {
                for index in 148..<156 { out[block + index] = 0x20 }
                let sum = out[block..<block + 512].reduce(0) { $0 + Int($1) }
                let digits = Array(String(sum, radix: 8).utf8)
                let field = [UInt8](repeating: UInt8(ascii: "0"), count: max(0, 6 - digits.count)) + digits.suffix(6)
                for (index, digit) in field.enumerated() { out[block + 148 + index] = digit }
                out[block + 154] = 0
                out[block + 155] = 0x20
            }
            block += 512
        }
        return out
    }
}

/// Each sized member's trailer (CRC-32 and ISIZE) rewritten to match what zlib inflates from
/// its deflate data, for members whose data inflates; everything else as it was.
enum MemberTrailers {
    static func fixed(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = Array(bytes)
        var offset = 0
        while offset + GzipMemberHeader.size <= out.count {
            guard let size = out.withUnsafeBytes({ GzipMemberHeader.memberSize(UnsafeRawBufferPointer(rebasing: $0[offset...])) }),
                size >= GzipMemberHeader.size + 8, offset + size <= out.count
            else { break }
            let trailer = offset + size - 8
            if let (crc, count) = out.withUnsafeBytes({ rawInflateSummary(UnsafeRawBufferPointer(rebasing: $0[(offset + GzipMemberHeader.size)..<trailer])) }) {
                for (index, value) in [crc, UInt32(truncatingIfNeeded: count)].enumerated() {
                    for byte in 0..<4 { out[trailer + index * 4 + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(byte))) }
                }
            }
            offset += size
        }
        return out
    }

    /// Whether `output` is, member by member, what each sized member's trailer says: its ISIZE
    /// bytes in turn, with its CRC-32 (zlib's), and nothing after the last.
    static func describe(_ bytes: UnsafeRawBufferPointer, _ output: [UInt8]) -> Bool {
        var offset = 0
        var produced = 0
        while offset < bytes.count {
            guard let size = GzipMemberHeader.memberSize(UnsafeRawBufferPointer(rebasing: bytes[offset...])), size >= GzipMemberHeader.size + 8,
                offset + size <= bytes.count
            else { return false }
            let trailer = Array(bytes[(offset + size - 8)..<(offset + size)])
            let crc = trailer[0..<4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let length = Int(trailer[4..<8].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            guard produced + length <= output.count else { return false }
            let actual = output[produced..<(produced + length)].withUnsafeBytes {
                UInt32(crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt($0.count)))
            }
            guard actual == crc else { return false }
            produced += length
            offset += size
        }
        return produced == output.count
    }

    /// The CRC-32 and length of what zlib's raw inflate (window bits -15) makes of one whole
    /// deflate stream, at most 1 MiB, inflated in pieces into one reused buffer: a fresh
    /// zero-filled megabyte per member was most of the target's time (page faults).
    static func rawInflateSummary(_ input: UnsafeRawBufferPointer) -> (crc: UInt32, count: Int)? {
        guard let base = input.baseAddress else { return nil }
        var stream = z_stream()
        guard larder_inflateInit2(&stream, -15) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        var crc = crc32(0, nil, 0)
        var count = 0
        while true {
            let piece = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.next_out = piece
            stream.avail_out = uInt(scratch.count)
            let result = inflate(&stream, Z_NO_FLUSH)
            let made = scratch.count - Int(stream.avail_out)
            crc = crc32(crc, piece, uInt(made))
            count += made
            guard count <= 1 << 20 else { return nil }
            switch result {
            case Z_STREAM_END: return (UInt32(crc), count)
            case Z_OK: if made == 0 && stream.avail_in == 0 { return nil }  // cut short
            default: return nil
            }
        }
    }

    /// libFuzzer runs one input at a time, on one thread.
    nonisolated(unsafe) private static let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
}
