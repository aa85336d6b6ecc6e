import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// A symbolic link where the cache keeps a folder (`staging`, an object shard, `quarantine`,
/// `downloads`), pointing at a folder of the user's, never makes the cache delete, move or list
/// anything there: a cache holding one does not open read-write (a typed error naming it), and
/// one swapped in after the cache opened is refused by the removal that meets it. The folder
/// outside is checked byte for byte afterwards.
@Suite struct PlantedFolderTests {
    enum Planted: String, CaseIterable, CustomStringConvertible {
        case staging, shard, quarantine, downloads
        var description: String { rawValue }
    }

    /// A folder outside the cache holding what each cache folder could hold, so that anything
    /// listing it through the link would find something to delete.
    struct Outside {
        let path: String
        let before: [String: String]

        init(_ path: String) throws {
            self.path = path
            let hex = String(repeating: "ab", count: 32)
            for (name, text) in [
                ("keep.txt", "the user's"), ("notes/keep.txt", "the user's too"), (String(hex.dropFirst(2)), "looks like an object"),
                ("install-AAAAAA/1", "looks like a staged object"), ("evicting", ""), ("\(hex).lock", ""),
                ("\(hex).tar.gz.part", "looks like a partial download"), ("\(hex).objects/\(hex)", "looks like a downloaded object"),
            ] {
                let file = path + "/" + name
                try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            }
            before = folderSnapshot(path)
        }

        var isIntact: Bool { folderSnapshot(path) == before }
    }

    /// A cache holding one bundle (and the folder it was packed from), with `planted` replaced
    /// by a link to a new folder outside it. The shard is one none of the bundle's objects use.
    static func plant(_ planted: Planted, in fixture: CacheFixture, used: Set<Digest>) throws -> (Outside, String) {
        let outside = try Outside(fixture.root + "-outside")
        let folder: String
        switch planted {
        case .shard:
            let shards = Set(used.map { String($0.hex.prefix(2)) })
            folder = fixture.root + "/objects/" + CacheLayout.shards.first { !shards.contains($0) }!
        default:
            folder = fixture.root + "/" + planted.rawValue
        }
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: outside.path)
        return (outside, folder)
    }

    @Test(arguments: Planted.allCases)
    func aCacheWithALinkForAFolderDoesNotOpenReadWrite(_ planted: Planted) throws {
        let fixture = try CacheFixture()
        let (archive, manifest) = try bundle("resident", ["a.css": "a{}", "b.js": "b()"])
        let digest = try fixture.open().install(archiveAt: try fixture.file(archive)).bundle
        let (outside, folder) = try Self.plant(planted, in: fixture, used: Set(manifest.files.map(\.digest)))
        defer { try? FileManager.default.removeItem(atPath: outside.path) }

        let error = #expect(throws: CacheError.self) { _ = try fixture.open() }
        #expect(error?.code == .foreignEntry, "\(String(describing: error))")
        #expect(error?.path == folder, "\(String(describing: error))")
        #expect(error?.message.contains("a symbolic link where the cache keeps") == true, "\(String(describing: error))")
        #expect(outside.isIntact)
        // Looking inside still works: a read-only cache removes nothing.
        let readOnly = try LarderCache(at: fixture.root, configuration: .init(mode: .readOnly))
        #expect(try readOnly.bundles().map(\.digest) == [digest])
        // Once the link is gone, the cache opens and makes the folder again.
        try FileManager.default.removeItem(atPath: folder)
        #expect(try fixture.open().verify().isClean)
        #expect(outside.isIntact)
    }

    /// What each removal meets: the folder of a planted link it must refuse (a typed error),
    /// or nothing (it does not look there, and succeeds).
    static let swaps: [(Planted, String, Bool)] = [
        (.staging, "sweep", true), (.staging, "evict", true), (.staging, "purge", true), (.staging, "clearAll", true),
        (.staging, "install", true),
        (.shard, "sweep", true), (.shard, "purge", true), (.shard, "evict", false), (.shard, "clearAll", false),
        (.quarantine, "purge", true), (.quarantine, "repair", true), (.quarantine, "sweep", false),
        (.downloads, "sweep", true), (.downloads, "purge", true), (.downloads, "clearAll", true),
    ]

    @Test(arguments: swaps)
    func aFolderSwappedForALinkAfterTheOpenIsNotFollowed(_ planted: Planted, _ operation: String, _ refused: Bool) throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try bundle("resident", ["a.css": "a{}", "b.js": "b()"])
        _ = try cache.install(archiveAt: try fixture.file(archive))
        let (later, laterManifest) = try bundle("later", ["c.css": "c{}"])
        let used = Set(manifest.files.map(\.digest) + laterManifest.files.map(\.digest))
        let (outside, folder) = try Self.plant(planted, in: fixture, used: used)
        defer { try? FileManager.default.removeItem(atPath: outside.path) }
        if operation == "repair" { try CorruptionTests.flipByte(of: manifest.file(at: "a.css")!.digest, in: fixture) }
        let laterArchive = try fixture.file(later)

        let outcome = Result { () throws(CacheError) in
            switch operation {
            case "sweep": _ = try cache.sweep()
            case "evict": _ = try cache.evict(toBytes: 0)
            case "purge": try cache.purge()
            case "clearAll": try cache.clearAll()
            case "install": _ = try cache.install(archiveAt: laterArchive)
            case "repair": _ = try cache.verify(repair: true)
            default: Issue.record("no such operation \(operation)")
            }
        }
        #expect(outside.isIntact, "\(planted), \(operation): \(outcome)")
        switch outcome {
        case .success: #expect(!refused, "\(planted), \(operation) went through \(folder)")
        case .failure(let error):
            #expect(refused, "\(planted), \(operation): \(error)")
            #expect(error.code == .foreignEntry && error.path == folder, "\(planted), \(operation): \(error)")
        }
    }
}
