import Foundation
@testable import LarderCache
import LarderFormat
import LarderSQLite
import LarderTestSupport
import Testing

/// A read-only cache (``LarderCache/Mode/readOnly``) answers every question a read-write one
/// does, refuses every change with ``CacheError/Code/readOnly``, and leaves the folder byte for
/// byte as it was (SQLite's shared-memory file aside, which readers may write). The read-only
/// file system and another user's cache are tested in the integration tests (where nothing at
/// all can change).
@Suite struct ReadOnlyCacheTests {
    static let readOnly = LarderCache.Configuration(mode: .readOnly)
    static let font = noise(30_000, seed: 5)

    /// A closed cache with two bundles, one pinned, one incomplete (an object quarantined).
    struct Filled {
        let fixture: CacheFixture
        let archive: [UInt8]
        let manifest: Manifest
        let complete: Digest
        let incomplete: Digest
        let lost: Digest

        init() throws {
            fixture = try CacheFixture()
            let cache = try fixture.open()
            (archive, manifest) = try makeBundleArchive(
                files: ["index.html": Array("<p>one</p>".utf8), "fonts/f.woff2": ReadOnlyCacheTests.font], name: "one")
            complete = try cache.install(archiveAt: try fixture.file(archive)).bundle
            try cache.setPinned(complete, true)
            let (second, secondManifest) = try bundle("two", ["lost.css": "lost{}"])
            incomplete = try cache.install(archiveAt: try fixture.file(second)).bundle
            lost = secondManifest.file(at: "lost.css")!.digest
            try CorruptionTests.flipByte(of: lost, in: fixture)
            #expect(try cache.verify(repair: true).incomplete == [incomplete])
        }

        /// Everything in the folder but SQLite's shared-memory file.
        var snapshot: [String: String] { folderSnapshot(fixture.root) { !$0.hasSuffix("-shm") } }
    }

    /// No folder, an empty one, an empty index, an index another process is still creating (in
    /// WAL mode, no tables yet): each reads as an empty cache, and nothing is created.
    @Test func aFolderWithNoCacheReadsAsEmptyAndNothingIsCreated() throws {
        let fixture = try CacheFixture()
        let index = fixture.root + "/index.sqlite"
        let (_, manifest) = try makeBundleArchive(files: ["index.html": Array("<p>".utf8), "fonts/f.woff2": Self.font])
        let cases: [(String, () throws -> Void)] = [
            ("no folder", {}),
            ("an empty folder", { try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true) }),
            ("an empty index", {
                try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
                try Data().write(to: URL(fileURLWithPath: index))
            }),
            ("an index being created", {
                try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
                try SQLiteDatabase<SQLiteError>(path: index).execute("PRAGMA journal_mode=WAL")
            }),
        ]
        for (name, make) in cases {
            if FileManager.default.fileExists(atPath: fixture.root) { try FileManager.default.removeItem(atPath: fixture.root) }
            try make()
            // SQLite's -wal and -shm files aside: a reader makes them where it may, as it must
            // to read alongside a writer (a cache Larder made always has them).
            func files() -> [String: String] { folderSnapshot(fixture.root) { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } }
            let before = files()
            let exists = FileManager.default.fileExists(atPath: fixture.root)
            let cache = try LarderCache(at: fixture.root, configuration: Self.readOnly)
            #expect(try cache.bundles().isEmpty, Comment(rawValue: name))
            let statistics = try cache.statistics()
            #expect(statistics.bundles == 0 && statistics.objects == 0 && statistics.bytesOnDisk == 0, Comment(rawValue: name))
            #expect(try cache.verify().isClean, Comment(rawValue: name))
            #expect(try cache.missingObjects(of: manifest) == Set(manifest.files.map(\.digest)), Comment(rawValue: name))
            #expect(Comment(rawValue: name)) {
                _ = try cache.resolveFont(FontURL(digest: SHA256Hasher.hash(Self.font)))
            } throws: { ($0 as? CacheError)?.code == .unknownFont }
            #expect(throws: CacheError.self) { _ = try cache.lease(manifest.bundleDigest) }
            #expect(files() == before, "\(name): something was created")
            #expect(FileManager.default.fileExists(atPath: fixture.root) == exists, Comment(rawValue: name))
        }
    }

    @Test func aPathThatIsNoFolderOrNoIndexIsAnError() throws {
        let fixture = try CacheFixture()
        try Data("x".utf8).write(to: URL(fileURLWithPath: fixture.root))
        #expect { _ = try LarderCache(at: fixture.root, configuration: Self.readOnly) } throws: {
            ($0 as? CacheError)?.code == .cacheNotFound
        }
        try FileManager.default.removeItem(atPath: fixture.root)
        try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: fixture.root + "/index.sqlite"))
        #expect { _ = try LarderCache(at: fixture.root, configuration: Self.readOnly) } throws: {
            ($0 as? CacheError)?.code == .storage
        }
    }

    @Test func answersEveryQuestionWithoutChangingAByte() throws {
        let filled = try Filled()
        let writable = try filled.fixture.open()
        let expected = (try writable.bundles(), try writable.statistics())
        let before = filled.snapshot  // the read-write connection is still open: its files settled

        let cache = try LarderCache(at: filled.fixture.root, configuration: Self.readOnly)
        #expect(cache.mode == .readOnly)
        #expect(try cache.bundles() == expected.0)
        #expect(try cache.bundle(filled.complete)?.pinned == true)
        #expect(try cache.manifest(filled.complete) == filled.manifest)
        let statistics = try cache.statistics()
        #expect(statistics.bundles == 2)
        #expect(statistics.objects == expected.1.objects)
        #expect(statistics.bytesOnDisk == expected.1.bytesOnDisk)
        #expect(statistics.integrityFailures == 1)
        let font = filled.manifest.files.first { $0.role == .font }!
        #expect(try cache.resolveFont(FontURL(digest: font.digest)).bytes == Self.font)
        let verification = try cache.verify()
        #expect(verification.corrupt.isEmpty)
        #expect(verification.incomplete == [filled.incomplete])
        #expect(try cache.missingObjects(of: try writable.manifest(filled.incomplete)) == [filled.lost])
        #expect(filled.snapshot == before)
    }

    /// Every method that would change the folder or the index, with what it is called with.
    static func changes(_ filled: Filled, _ archivePath: String) -> [(String, (LarderCache) throws -> Void)] {
        [
            ("install(archiveAt:)", { _ = try $0.install(archiveAt: archivePath) }),
            ("install(from:)", { _ = try $0.install { (_) throws(FormatError) in 0 } }),
            ("importEmbeddedDefault", { _ = try $0.importEmbeddedDefault(archiveAt: archivePath) }),
            ("install(_:objectFiles:)", { _ = try $0.install(VerifiedManifest(filled.manifest), objectFiles: [:]) }),
            ("lease", { _ = try $0.lease(filled.complete) }),
            ("retain", { _ = try $0.retain(scope: "user", keeping: [filled.complete]) }),
            ("setPinned", { try $0.setPinned(filled.complete, false) }),
            ("clearAll", { try $0.clearAll() }),
            ("evict", { _ = try $0.evict(toBytes: 0) }),
            ("sweep", { _ = try $0.sweep() }),
            ("sweep(dryRun:)", { _ = try $0.sweep(dryRun: true) }),
            ("verify(repair:)", { _ = try $0.verify(repair: true) }),
            ("purge", { try $0.purge() }),
            ("claimDownload", { _ = try $0.claimDownload(filled.incomplete) }),
        ]
    }

    @Test func refusesEveryChangeWithATypedError() throws {
        let filled = try Filled()
        let archivePath = try filled.fixture.file(filled.archive)
        let before = filled.snapshot
        let cache = try LarderCache(at: filled.fixture.root, configuration: Self.readOnly)
        for (name, change) in Self.changes(filled, archivePath) {
            #expect(Comment(rawValue: name)) { try change(cache) } throws: { error in
                guard let error = error as? CacheError else { return false }
                return error.code == .readOnly && error.message.contains("read-only")
            }
            #expect(filled.snapshot == before, "\(name) changed the folder")
        }
    }
}
