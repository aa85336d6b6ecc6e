import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// `ObjectFile` checks a file before reading a byte of it and reads up to the recorded size
/// only, whatever the file does after it was opened.
@Suite struct ObjectFileTests {
    final class Folder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-object-\(UUID().uuidString)").path
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit {
            do { try FileManager.default.removeItem(atPath: path) } catch { print("could not remove \(path): \(error)") }
        }

        func write(_ bytes: [UInt8], to name: String) throws -> String {
            try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
            return path + "/" + name
        }
    }

    static let bytes = noise(100_000, seed: 3)

    /// Appends to (or truncates) `path` through another descriptor.
    static func resize(_ path: String, appending extra: [UInt8] = [], truncatingTo length: Int? = nil) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        if let length { try handle.truncate(atOffset: UInt64(length)) }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(extra))
        try handle.close()
    }

    @Test func readsTheRecordedSizeOnlyWhenTheFileGrowsAfterTheCheck() throws {
        let folder = try Folder()
        let path = try folder.write(Self.bytes, to: "object")
        let file = try ObjectFile(opening: path, size: Int64(Self.bytes.count))
        try Self.resize(path, appending: noise(1 << 20, seed: 4))
        #expect(try file.readAll() == Self.bytes)
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 64)
        defer { buffer.deallocate() }
        try file.hash(into: hasher, buffer: buffer)
        #expect(hasher.finalize() == SHA256Hasher.hash(Self.bytes))
    }

    @Test func aFileThatShrinksAfterTheCheckIsDamaged() throws {
        let folder = try Folder()
        let path = try folder.write(Self.bytes, to: "object")
        let file = try ObjectFile(opening: path, size: Int64(Self.bytes.count))
        try Self.resize(path, truncatingTo: 1000)
        #expect {
            _ = try file.readAll()
        } throws: { error in
            guard case .shrank(to: 1000, recorded: Int64(Self.bytes.count)) = error as? ObjectFileProblem else { return false }
            return true
        }
    }

    @Test(arguments: PlantedFile.allCases)
    func refusesWhatIsNotARegularFileOfTheRecordedSize(_ planted: PlantedFile) throws {
        let folder = try Folder()
        let path = folder.path + "/object"
        guard try planted.plant(at: path, object: Self.bytes, scratch: folder.path) else { return }  // a device needs root
        let size = Int64(Self.bytes.count)
        let problem = try withWatchdog { () -> String? in
            do throws(ObjectFileProblem) {
                _ = try ObjectFile(opening: path, size: size)
                return nil
            } catch {
                return error.damage
            }
        }
        #expect(problem == planted.damage(size: Self.bytes.count))
    }

    @Test func aMissingFileOrShardIsMissingNotDamaged() throws {
        let folder = try Folder()
        let shard = try folder.write([1], to: "ab")  // a file where a shard folder belongs
        for path in [folder.path + "/none", shard + "/cdef"] {
            #expect {
                _ = try ObjectFile(opening: path, size: 1)
            } throws: { error in
                guard case .missing = error as? ObjectFileProblem else { return false }
                return true
            }
        }
    }
}
