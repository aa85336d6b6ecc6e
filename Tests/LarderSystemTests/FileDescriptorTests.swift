import Foundation
import LarderSystem
import Testing

@Suite struct FileDescriptorTests {
    @Test func writesEverythingAndReadsItBackAtAnyOffset() throws {
        let scratch = try Scratch()
        let path = scratch.path + "/file"
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        do {
            let file = try FileDescriptor(opening: path, [.writeOnly, .create, .exclusive])
            try bytes.withUnsafeBytes { try file.writeAll($0) }
            try Array("end".utf8).withUnsafeBytes { try file.writeAll($0, at: 300_000) }
            try file.synchronize()
            try file.close()
        }
        let file = try FileDescriptor(opening: path, .readOnly)
        #expect(try file.status() == FileStatus.of(path))
        #expect(try file.status().kind == .regular)
        #expect(try file.status().size == 300_003)
        var buffer = [UInt8](repeating: 0, count: 10)
        let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0, at: 299_995) }
        #expect(count == 8)
        #expect(Array(buffer[0..<8]) == Array(bytes[299_995...]) + Array("end".utf8))
        let first = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
        #expect(first == 10 && buffer == Array(bytes[0..<10]))
    }

    @Test func openingFailuresAreTheirErrno() throws {
        let scratch = try Scratch()
        try scratch.write("there", "x")
        #expect(throws: Errno.notFound) { _ = try FileDescriptor(opening: scratch.path + "/missing", .readOnly) }
        #expect(throws: Errno.exists) { _ = try FileDescriptor(opening: scratch.path + "/there", [.writeOnly, .create, .exclusive]) }
        #expect(throws: Errno.notAFolder) { _ = try FileDescriptor.openFolder(scratch.path + "/there") }
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/link", withDestinationPath: scratch.path + "/there")
        #expect(throws: Errno.tooManyLinks) { _ = try FileDescriptor(opening: scratch.path + "/link", .noFollow) }
    }

    @Test func statusNamesWhatIsThere() throws {
        let scratch = try Scratch()
        #expect(mkfifo(scratch.path + "/fifo", 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: scratch.path + "/link", withDestinationPath: scratch.path)
        #expect(try FileStatus.of(scratch.path).kind == .folder)
        #expect(try FileStatus.ofLink(scratch.path + "/fifo").kind == .fifo)
        #expect(try FileStatus.ofLink(scratch.path + "/link").kind == .symbolicLink)
        #expect(try FileStatus.of(scratch.path + "/link").kind == .folder)
        #expect(try FileStatus.of("/dev/null").kind == .characterDevice)
        #expect(throws: Errno.notFound) { try FileStatus.ofLink(scratch.path + "/missing") }
    }

    @Test func anInterruptedCallIsRetriedAndOtherErrorsAreThrown() {
        var calls = 0
        let value = try? valueOrErrno { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 7
        }
        #expect(value == 7 && calls == 3)
        #expect(throws: Errno.interrupted) {
            try valueOrErrno(retryOnInterrupt: false) { () -> Int32 in
                errno = EINTR
                return -1
            }
        }
        #expect(throws: Errno.ioError) {
            try nothingOrErrno {
                errno = EIO
                return -1
            }
        }
        #expect(Errno(rawValue: ENOSPC).isNoSpace && Errno(rawValue: EDQUOT).isNoSpace && !Errno.ioError.isNoSpace)
        #expect(Errno.notFound.description == String(cString: strerror(ENOENT)))
    }
}
