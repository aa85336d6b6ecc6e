import Foundation
import LarderSystem
import Testing

@Suite struct AtomicFileTests {
    @Test func aCommittedFileAppearsWholeAndADroppedOneLeavesNothing() throws {
        let scratch = try Scratch()
        do {
            let file = try AtomicFile(folder: scratch.path, prefix: "out", mode: 0o600)
            try Array("hello".utf8).withUnsafeBytes { try file.write($0) }
            #expect(scratch.read("out") == nil, "nothing at the path before the commit")
            try file.commit(to: scratch.path + "/out")
        }
        #expect(scratch.read("out") == "hello")
        #expect(try FileManager.default.attributesOfItem(atPath: scratch.path + "/out")[.posixPermissions] as? Int == 0o600)
        do {
            let dropped = try AtomicFile(folder: scratch.path, prefix: "gone")
            try Array("x".utf8).withUnsafeBytes { try dropped.write($0) }
        }
        #expect(Folder.names(scratch.path) == ["out"], "the temporary file of a dropped writer is removed")
    }

    @Test func notReplacingRefusesAnExistingFileAndChangesNothing() throws {
        let scratch = try Scratch()
        try scratch.write("key", "old")
        let file = try AtomicFile(folder: scratch.path, prefix: "key")
        try Array("new".utf8).withUnsafeBytes { try file.write($0) }
        let error = #expect(throws: AtomicFile.Failure.self) { try file.commit(to: scratch.path + "/key", replacing: false) }
        #expect(error?.errno == .exists)
        #expect(scratch.read("key") == "old")
    }

    @Test func aFolderThatCannotHoldItFailsAtCreation() throws {
        let scratch = try Scratch()
        let error = #expect(throws: AtomicFile.Failure.self) { try AtomicFile(folder: scratch.path + "/missing", prefix: "out") }
        #expect(error?.errno == .notFound)
        #expect(error?.path == scratch.path + "/missing")
    }
}
