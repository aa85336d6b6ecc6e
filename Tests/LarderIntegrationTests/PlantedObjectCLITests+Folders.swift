import Foundation
import LarderCache
import LarderFormat
import LarderTestSupport
import Testing

/// What a cache restored from a backup or a CI artifact (or a folder others share) may hold
/// besides planted objects: a symbolic link where the cache keeps a folder, and a FIFO where it
/// keeps its index. No command deletes anything through the link, and none blocks on the FIFO:
/// each ends at once with a typed error naming what to remove (exit 65).
extension PlantedObjectCLITests {
    /// The commands that change a cache, as the issue ran them.
    static func changingCommands(_ setup: Setup) -> [(String, [String])] {
        [
            ("journey prepare --offline", setup.journey), ("cache install", ["cache", "install", setup.report.archivePath, "--cache", setup.cache]),
            ("cache gc", ["cache", "gc", "--cache", setup.cache]), ("cache evict", ["cache", "evict", "--to", "0", "--cache", setup.cache]),
            ("cache verify --repair", ["cache", "verify", "--repair", "--cache", setup.cache]), ("cache purge", ["cache", "purge", "--cache", setup.cache]),
        ]
    }

    /// A folder of the user's with files that look like what a cache folder holds (a stray
    /// object's name, a staging folder, partial downloads), so that listing it through the link
    /// finds them all to delete.
    static func userFolder(_ path: String) throws -> [String: String] {
        let hex = String(repeating: "cd", count: 32)
        for (name, text) in [
            ("thesis.txt", "years of work"), ("photos/1.jpg", "a photo"), (String(hex.dropFirst(2)), "named like an object"),
            ("install-Q1w2E3/1", "named like a staged object"), ("\(hex).lock", ""), ("\(hex).tar.gz.part", "named like a download"),
        ] {
            let file = path + "/" + name
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        }
        return folderSnapshot(path)
    }

    @Test(arguments: ["staging", "objects/<unused shard>", "quarantine"])
    func aLinkPlantedForACacheFolderDeletesNothingItPointsAt(_ planted: String) async throws {
        let setup = try await Setup()
        let manifest = try LarderCache(at: setup.cache, configuration: .init(mode: .readOnly)).manifest(setup.report.bundleDigest)
        let used = Set(manifest.files.map { String($0.digest.hex.prefix(2)) })
        let folder =
            planted.hasPrefix("objects/")
            ? setup.cache + "/objects/" + (0..<256).map { String(format: "%02x", $0) }.first { !used.contains($0) }!
            : setup.cache + "/" + planted
        let outside = setup.work.path + "/home-x"
        let before = try Self.userFolder(outside)
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: outside)

        for (name, arguments) in Self.changingCommands(setup) {
            let outcome = try await run(arguments, "\(planted): \(name)")
            #expect(outcome.status == 65, "\(planted): \(name): \(outcome)")
            #expect(outcome.stderr.contains("\(folder): this is a symbolic link where the cache keeps"), "\(planted): \(name): \(outcome)")
            #expect(outcome.stderr.contains("remove it"), "\(planted): \(name): \(outcome)")
            #expect(folderSnapshot(outside) == before, "\(planted): \(name) changed the folder the link points at")
        }
        // Looking inside changes nothing and still works; once the link is gone, so does the rest.
        let ls = try await run(["cache", "ls", "--cache", setup.cache], "\(planted): ls")
        #expect(ls.status == 0, "\(ls)")
        try FileManager.default.removeItem(atPath: folder)
        let verify = try await run(["cache", "verify", "--repair", "--cache", setup.cache], "\(planted): verify after")
        #expect(verify.status == 0, "\(verify)")
        #expect(folderSnapshot(outside) == before)
    }

    /// A FIFO where the index (or its log) belongs: opening it would block until a writer came,
    /// for ever. Every command that opens the cache, read-only or not, refuses it at once.
    @Test(arguments: ["index.sqlite", "index.sqlite-wal"])
    func aFIFOInPlaceOfTheIndexIsRefusedAtOnce(_ name: String) async throws {
        let setup = try await Setup()
        let path = setup.cache + "/" + name
        try? FileManager.default.removeItem(atPath: path)  // the log may not be there
        #expect(mkfifo(path, 0o644) == 0)
        let digest = setup.report.bundleDigest.description
        let commands: [(String, [String])] = [
            ("ls", ["cache", "ls", "--cache", setup.cache]), ("stats", ["cache", "stats", "--cache", setup.cache]),
            ("show", ["cache", "show", digest, "--cache", setup.cache]), ("verify", ["cache", "verify", "--cache", setup.cache]),
            ("diff --cache", ["diff", digest, digest, "--cache", setup.cache]), ("gc", ["cache", "gc", "--cache", setup.cache]),
            ("journey prepare --offline", setup.journey),
        ]
        for (label, arguments) in commands {
            // Bounded: a command blocked in open(2) is killed by the watchdog and fails here.
            let outcome = try await LarderProcess.run(arguments, watchdog: .seconds(20))
            #expect(!outcome.killed, "\(name): \(label) blocked: \(outcome)")
            #expect(outcome.elapsed < 10, "\(name): \(label): \(outcome)")
            #expect(outcome.status == 65, "\(name): \(label): \(outcome)")
            #expect(outcome.stderr.contains("\(path): this is a FIFO where the cache keeps its index"), "\(name): \(label): \(outcome)")
        }
    }
}
