import CZlib
import Testing
@testable import LarderFormat

@Suite struct ParallelGzipWriterTests {
    /// Inflates a whole gzip stream with zlib (window bits 31), checking its CRC and length.
    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var stream = z_stream()
        #expect(larder_inflateInit2(&stream, 31) == Z_OK)
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = bytes
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
                }
            } while status == Z_OK
        }
        guard status == Z_STREAM_END, stream.avail_in == 0 else { throw FormatError(.compression, "inflate status \(status)") }
        return output
    }

    static func compress(_ input: [UInt8], level: Int = 6, concurrency: Int, blockSize: Int = 64 * 1024, pieces: Int = 7) throws -> [UInt8] {
        var output: [UInt8] = []
        let writer = ParallelGzipWriter(level: level, blockSize: blockSize, concurrency: concurrency) { (bytes) throws(FormatError) in
            output.append(contentsOf: bytes)
        }
        let step = max(1, input.count / pieces)
        var offset = 0
        while offset < input.count {
            let end = min(input.count, offset + step)
            try input[offset..<end].withUnsafeBytes { try writer.write($0) }
            offset = end
        }
        try writer.finish()
        return output
    }

    static func text(_ count: Int) -> [UInt8] {
        let words = ["paywall", "onboarding", "font-face", "render", "larder", "cache", "bundle", "digest", "{", "}", ";", "\n"]
        var state: UInt64 = 42
        var out: [UInt8] = []
        while out.count < count {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            out.append(contentsOf: words[Int(state >> 60) % words.count].utf8)
            out.append(0x20)
        }
        return Array(out.prefix(count))
    }

    @Test(arguments: [0, 1, 1000, 64 * 1024, 64 * 1024 + 1, 300_001])
    func roundTripsThroughZlib(_ count: Int) throws {
        let input = Self.text(count)
        #expect(try Self.gunzip(Self.compress(input, concurrency: 2)) == input)
    }

    @Test func outputDoesNotDependOnThreadsOrWriteSizes() throws {
        let input = Self.text(500_000)
        let single = try Self.compress(input, concurrency: 1, pieces: 1)
        #expect(try Self.compress(input, concurrency: 4, pieces: 13) == single)
        #expect(try Self.compress(input, concurrency: 2, pieces: 997) == single)
    }

    @Test func headerHasNoNameOrTimestamp() throws {
        let output = try Self.compress(Self.text(10), concurrency: 1)
        #expect(Array(output.prefix(10)) == [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])
    }

    @Test func sizeStaysCloseToSingleStreamGzip() throws {
        let input = Self.text(2_000_000)
        let parallel = try Self.compress(input, concurrency: 2, blockSize: ParallelGzipWriter.defaultBlockSize)
        var bound = compressBound(uLong(input.count))
        var single = [UInt8](repeating: 0, count: Int(bound))
        #expect(compress2(&single, &bound, input, uLong(input.count), 6) == Z_OK)
        // zlib's stream has a 6-byte wrapper, gzip an 18-byte one.
        #expect(Double(parallel.count) <= Double(bound) * 1.01 + 12)
    }

    @Test func sinkErrorsReachTheCaller() throws {
        let writer = ParallelGzipWriter(level: 6, concurrency: 2) { (_) throws(FormatError) in
            throw FormatError(.io, "disk full")
        }
        #expect { try Self.text(400_000).withUnsafeBytes { try writer.write($0) }; try writer.finish() } throws: { error in
            (error as? FormatError)?.message == "disk full"
        }
    }
}
