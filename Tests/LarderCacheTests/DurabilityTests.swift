import Foundation
@testable import LarderCache
import LarderSystem
import LarderTestSupport
import Testing

/// Both durability paths (``Durability``): Linux's `syncfs` + `renameat2`, and the POSIX-only
/// path Apple platforms take, which `LARDER_DURABILITY=posix` selects for a whole test run
/// (the README's test command runs the cache's suites that way too).
@Suite struct DurabilityTests {
    static func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-durability-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theEnvironmentChoosesThePath() {
        let asked = ProcessInfo.processInfo.environment["LARDER_DURABILITY"]
        #expect(Durability.current == (asked == "posix" ? .perFile : .fileSystem))
    }

    @Test(arguments: Durability.allCases)
    func aNoReplaceRenameNeverReplaces(_ durability: Durability) throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("new".utf8).write(to: URL(fileURLWithPath: folder + "/staged"))
        try durability.renameNoReplace(folder + "/staged", folder + "/object")
        #expect(!FileManager.default.fileExists(atPath: folder + "/staged"))
        #expect(FileManager.default.contents(atPath: folder + "/object") == Data("new".utf8))

        try Data("other".utf8).write(to: URL(fileURLWithPath: folder + "/second"))
        #expect(throws: Errno.exists) { try durability.renameNoReplace(folder + "/second", folder + "/object") }
        #expect(FileManager.default.contents(atPath: folder + "/object") == Data("new".utf8))
        #expect(FileManager.default.contents(atPath: folder + "/second") == Data("other".utf8))

        // Folders (what a planted object can be, on its way to quarantine).
        try FileManager.default.createDirectory(atPath: folder + "/planted", withIntermediateDirectories: false)
        try durability.renameNoReplace(folder + "/planted", folder + "/quarantined")
        try FileManager.default.createDirectory(atPath: folder + "/planted", withIntermediateDirectories: false)
        #expect(throws: Errno.exists) { try durability.renameNoReplace(folder + "/planted", folder + "/quarantined") }
        #expect(throws: Errno.exists) { try durability.renameNoReplace(folder + "/planted", folder + "/object") }
    }

    @Test(arguments: Durability.allCases)
    func flushingNamesWhatFailed(_ durability: Durability) throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        let anchor = try FileDescriptor.openFolder(folder)
        try durability.synchronize(files: [folder + "/file"], folders: [folder], anchor: anchor)
        if durability == .perFile {
            let error = #expect(throws: CacheError.self) {
                try durability.synchronize(files: [folder + "/missing"], folders: [folder], anchor: anchor)
            }
            #expect(error?.path == folder + "/missing")
        }
    }

    /// An install that finds every object already in place (another bundle's, or moved there
    /// by another process's install that may not have made the move durable yet) still makes
    /// the objects' folders durable before its row commits. Without it, a crash on btrfs lost
    /// an acknowledged bundle's objects (Tools/powerloss.sh --fs btrfs found it: the index's
    /// fsync logs only the index there).
    @Test func anInstallOfObjectsAlreadyInPlaceStillMakesThemDurable() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let files = ["a.css": "a{}", "b.js": "let b", "index.html": "<p>the same in both</p>"]
        let (first, _) = try bundle("first", files)
        _ = try cache.install(archiveAt: try fixture.file(first))
        #expect(cache.moveSynchronizations.load(ordering: .relaxed) == 1)

        let (second, manifest) = try bundle("second", files)
        let result = try cache.install(archiveAt: try fixture.file(second))
        #expect(result.bundle == manifest.bundleDigest)
        #expect(result.objectsWritten == 0)  // every object was reused
        #expect(cache.moveSynchronizations.load(ordering: .relaxed) == 2)
    }

    /// An install writes through two staging folders; the flush before its objects move into
    /// the store covers the files of both (on the POSIX path, one fsync each).
    @Test(arguments: Durability.allCases)
    func anInstallsFlushCoversEveryStagingFolder(_ durability: Durability) throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let layout = CacheLayout(root: root)
        try layout.create()
        let areas = [try StagingArea(layout: layout), try StagingArea(layout: layout)]
        let first = try areas[0].createFile()
        let second = try areas[1].createFile()
        try StagingArea.synchronize(areas, durability: durability)
        try FileManager.default.removeItem(atPath: second.path)
        if durability == .perFile {
            // The second folder's file is in the list: its flush fails, naming it.
            let error = #expect(throws: CacheError.self) { try StagingArea.synchronize(areas, durability: durability) }
            #expect(error?.path == second.path)
        } else {
            try StagingArea.synchronize(areas, durability: durability)  // one syncfs for all
        }
        _ = consume first
    }
}
