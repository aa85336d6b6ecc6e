import Foundation
import LarderSystem
import Testing

/// An opened folder is worked in relative to its descriptor: swapping its path for a symbolic
/// link afterwards changes nothing, no link inside is followed, and names that are not UTF-8
/// are listed and removed by their bytes.
@Suite struct OpenFolderTests {
    @Test func emptiesTheFolderItOpenedNotWhereItsPathLeadsLater() throws {
        let scratch = try Scratch()
        let outside = try Scratch()
        try outside.write("keep", "me")
        try FileManager.default.createDirectory(atPath: outside.path + "/sub", withIntermediateDirectories: true)
        try outside.write("sub/keep", "me too")
        let folder = scratch.path + "/folder"
        try FileManager.default.createDirectory(atPath: folder + "/sub/deeper", withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: folder + "/a"))
        try Data("b".utf8).write(to: URL(fileURLWithPath: folder + "/sub/deeper/b"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: outside.path)
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        let latin1: [CChar] = Array((folder + "/caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9), 0]
        let descriptor = open(latin1, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(descriptor >= 0)
        close(descriptor)

        let opened = try OpenFolder(folder)
        // Swapped after the open: the folder moves aside, a link to the user's folder takes its path.
        try FileManager.default.moveItem(atPath: folder, toPath: scratch.path + "/moved")
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: outside.path)

        let entries = try opened.entries()
        #expect(Set(entries.map(\.name)) == ["a", "sub", "link", "fifo", "caf\u{FFFD}"])
        #expect(entries.first { $0.name == "link" }?.kind == .symbolicLink)
        #expect(entries.first { $0.name == "sub" }?.kind == .folder)
        #expect(try opened.status(of: "link")?.kind == .symbolicLink)
        #expect(Self.refusedAsLink { () throws(Errno) in _ = try opened.folder("link") })
        try opened.removeContents()
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path + "/moved").isEmpty)
        #expect(outside.read("keep") == "me" && outside.read("sub/keep") == "me too")
        // The path itself, a link now, is refused rather than followed.
        #expect(Self.refusedAsLink { () throws(Errno) in _ = try OpenFolder(folder) })
        #expect(try OpenFolder(folder, followingLink: true).entries().count == 2)
        // Folder.removeTree removes the link, not what it points at.
        try Folder.removeTree(folder)
        #expect(!FileManager.default.fileExists(atPath: folder) && outside.read("keep") == "me")
    }

    /// Whether `body` was refused as `O_NOFOLLOW | O_DIRECTORY` refuses a link: `ENOTDIR` on
    /// Linux, `ELOOP` elsewhere.
    static func refusedAsLink(_ body: () throws(Errno) -> Void) -> Bool {
        do { try body() } catch { return error == .notAFolder || error == .tooManyLinks }
        return false
    }

    @Test func createsUniqueFoldersAndMovesBetweenOpenedFolders() throws {
        let scratch = try Scratch()
        let opened = try OpenFolder(scratch.path)
        let first = try opened.createUniqueFolder(prefix: "install-")
        let second = try opened.createUniqueFolder(prefix: "install-")
        #expect(first != second && first.hasPrefix("install-") && first.count == "install-".count + 6)
        #expect(try opened.createFolder(first) == false)
        let inner = try opened.folder(first)
        try inner.openFile("x", [.writeOnly, .create, .exclusive]).close()
        let target = try opened.folder(second)
        try inner.move("x", to: target, as: "y")
        try target.openFile("z", [.writeOnly, .create, .exclusive]).close()
        #expect(throws: Errno.exists) { try target.moveWithoutReplacing("y", to: target, as: "z") }
        try target.moveWithoutReplacing("y", to: inner, as: "x")
        #expect(try inner.status(of: "x")?.kind == .regular && target.status(of: "y") == nil)
        #expect(throws: Errno.folderNotEmpty) { try opened.removeFolder(first) }
        try opened.removeEntry(first)
        try opened.removeEntry(first)  // gone: not an error
        #expect(try opened.entries().map(\.name) == [second])
    }
}
