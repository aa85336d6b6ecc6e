import Foundation
import LarderFormat
import LarderTestSupport
import Testing
@testable import LarderCache

/// One download per bundle per cache: claims exclude each other across handles (and so across
/// processes), partial files outlive a claim for the next claimant, and maintenance removes
/// only what nobody is working on.
@Suite struct DownloadClaimTests {
    static let bundle = SHA256Hasher.hash(Array("a bundle".utf8))

    func writePartial(_ claim: DownloadClaim, bytes: Int = 1000) throws {
        try Data(repeating: 1, count: bytes).write(to: URL(fileURLWithPath: claim.archivePath))
        try FileManager.default.createDirectory(atPath: claim.objectsFolder, withIntermediateDirectories: true)
        try Data(repeating: 2, count: bytes).write(to: URL(fileURLWithPath: claim.objectsFolder + "/object.part"))
    }

    @Test func aClaimIsExclusiveUntilReleased() throws {
        let fixture = try CacheFixture()
        let first = try fixture.open()
        let second = try LarderCache(at: fixture.root)  // another handle: its own lock file descriptor
        let claim = try #require(try first.claimDownload(Self.bundle))
        #expect(try second.claimDownload(Self.bundle) == nil)
        #expect(try first.claimDownload(Self.bundle) == nil)
        #expect(try second.claimDownload(SHA256Hasher.hash(Array("another".utf8))) != nil)
        try writePartial(claim)
        claim.release()
        let next = try #require(try second.claimDownload(Self.bundle))
        #expect(FileManager.default.fileExists(atPath: next.archivePath), "the partial file is kept for whoever comes next")
    }

    @Test func retiringRemovesThePartialFilesAndTheLock() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let claim = try #require(try cache.claimDownload(Self.bundle))
        try writePartial(claim)
        try claim.retire()
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/downloads").isEmpty)
        #expect(try cache.claimDownload(Self.bundle) != nil)
    }

    @Test func aRetiredLockFileHeldOpenExcludesNobody() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let claim = try #require(try cache.claimDownload(Self.bundle))
        let path = fixture.root + "/downloads/\(Self.bundle.hex).lock"
        // Someone holds the old file open; the holder retires it; a new claim takes a new file.
        let stale = open(path, O_RDWR)
        #expect(stale >= 0)
        defer { close(stale) }
        try claim.retire()
        #expect(flock(stale, LOCK_EX | LOCK_NB) == 0, "the old file is free, but no longer the lock")
        let fresh = try #require(try cache.claimDownload(Self.bundle))
        #expect(try LarderCache(at: fixture.root).claimDownload(Self.bundle) == nil)
        fresh.release()
    }

    @Test func gcRemovesDownloadsOfInstalledBundlesButNotClaimedOnes() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let (archive, manifest) = try makeBundleArchive(files: ["index.html": Array("<p>hi".utf8)])
        let installed = try cache.install(archiveAt: try fixture.file(archive)).bundle
        #expect(installed == manifest.bundleDigest)
        let leftover = try #require(try cache.claimDownload(installed))
        try writePartial(leftover)
        leftover.release()
        let busy = try #require(try cache.claimDownload(Self.bundle))
        try writePartial(busy)
        let report = try #require(try fixture.sweepWhenFree(cache))
        #expect(report.downloadBytes == 2000)
        #expect(!FileManager.default.fileExists(atPath: leftover.archivePath))
        #expect(FileManager.default.fileExists(atPath: busy.archivePath), "a claimed download is someone's work in progress")
        busy.release()
    }

    @Test func purgeAndLogoutRemoveEveryUnclaimedDownload() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let claim = try #require(try cache.claimDownload(Self.bundle))
        try writePartial(claim)
        claim.release()
        try cache.clearAll()
        #expect(!FileManager.default.fileExists(atPath: claim.archivePath))
        let again = try #require(try cache.claimDownload(Self.bundle))
        try writePartial(again)
        again.release()
        try cache.purge()
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/downloads").isEmpty)
    }

    @Test func aLockPathThatIsASymlinkIsRefused() throws {
        let fixture = try CacheFixture()
        let cache = try fixture.open()
        let target = fixture.root + "/elsewhere"
        #expect(FileManager.default.createFile(atPath: target, contents: nil))
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/downloads/\(Self.bundle.hex).lock", withDestinationPath: target)
        do {
            _ = try cache.claimDownload(Self.bundle)
            Issue.record("a symlinked lock was followed")
        } catch {
            #expect(error.code == .storage)
        }
    }
}
