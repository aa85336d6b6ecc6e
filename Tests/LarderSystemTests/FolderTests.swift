import Foundation
import LarderSystem
import Testing

@Suite struct FolderTests {
    @Test func listsNamesWithoutDotEntries() throws {
        let scratch = try Scratch()
        #expect(Folder.names(scratch.path).isEmpty)
        try scratch.write("a", "1")
        try Folder.create(scratch.path + "/b")
        try Folder.create(scratch.path + "/b")  // exists: not an error
        #expect(Set(Folder.names(scratch.path)) == ["a", "b"])
        #expect(Folder.names(scratch.path + "/missing").isEmpty)
        #expect(Folder.names(scratch.path + "/a").isEmpty, "a file lists as nothing")
    }

    @Test func removesATreeWithoutFollowingLinks() throws {
        let scratch = try Scratch()
        let outside = try Scratch()
        try outside.write("keep", "me")
        let tree = scratch.path + "/tree"
        try FileManager.default.createDirectory(atPath: tree + "/a/b", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: tree + "/a/b/file"))
        try FileManager.default.createSymbolicLink(atPath: tree + "/a/link", withDestinationPath: outside.path)
        #expect(mkfifo(tree + "/fifo", 0o644) == 0)
        try Folder.removeTree(tree)
        #expect(!File.exists(tree))
        #expect(outside.read("keep") == "me")
        try Folder.removeTree(tree)  // gone: not an error
    }

    @Test func refusesNestingDeeperThanTheLimit() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path + "/1/2/3/4", withIntermediateDirectories: true)
        let error = #expect(throws: Folder.RemovalError.self) { try Folder.removeTree(scratch.path + "/1", depthLimit: 3) }
        guard case .tooDeep = error?.reason else {
            Issue.record("expected tooDeep, got \(String(describing: error))")
            return
        }
        #expect(error?.path == scratch.path + "/1/2/3/4")
    }

    @Test func createsUniqueFoldersAndMovesFilesWithoutReplacing() throws {
        let scratch = try Scratch()
        let first = try Folder.createUnique(scratch.path + "/install-XXXXXX")
        let second = try Folder.createUnique(scratch.path + "/install-XXXXXX")
        #expect(first != second && File.exists(first) && File.exists(second))
        try scratch.write("new", "new")
        try scratch.write("old", "old")
        #expect(throws: Errno.exists) { try File.renameNoReplace(scratch.path + "/new", to: scratch.path + "/old") }
        #expect(scratch.read("old") == "old")
        #expect(throws: Errno.exists) { try File.link(scratch.path + "/new", to: scratch.path + "/old") }
        try File.rename(scratch.path + "/new", to: scratch.path + "/old")
        #expect(scratch.read("old") == "new" && scratch.read("new") == nil)
        try File.remove(scratch.path + "/old")
        try File.remove(scratch.path + "/old")  // gone: not an error
        #expect(throws: Errno.isFolder) { try File.remove(first) }
        try Folder.remove(first)
        try Folder.synchronize(scratch.path)
    }
}
