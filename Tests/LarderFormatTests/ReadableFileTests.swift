import Foundation
import LarderFormat
import Testing

/// `ReadableFile` reads regular files only: a FIFO without a writer, a folder or a device is
/// refused at once with a typed error naming what it is, never waited on.
@Suite struct ReadableFileTests {
    @Test func anythingButARegularFileIsRefusedAtOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("larder-readable-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/fifo", 0o644) == 0)
        for (path, kind) in [(folder + "/fifo", "a FIFO"), (folder, "a folder"), ("/dev/null", "a device")] {
            let error = #expect(throws: FormatError.self) { try ReadableFile(path: path) }
            #expect(error?.code == .io)
            #expect(error?.message == "not a regular file (\(kind))", "\(String(describing: error))")
        }
        try Data("abc".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        #expect(try ReadableFile(path: folder + "/file").readAll() == Array("abc".utf8))
        // A symbolic link to a regular file reads it (paths users give may be links).
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/file")
        #expect(try ReadableFile(path: folder + "/link").readAll() == Array("abc".utf8))
    }
}
