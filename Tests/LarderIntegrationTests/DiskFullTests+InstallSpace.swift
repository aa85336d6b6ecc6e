import Foundation
import LarderCache
import LarderFormat
import LarderTestSupport
import Testing

/// A disk with room for a bundle's archive but not for the archive and the objects its install
/// writes beside it: the fetch refuses before downloading (exit 73, saying how much it needs),
/// every time, instead of downloading the whole archive, failing at the install, deleting it,
/// and downloading it again at the next attempt.
extension DiskFullTests {
    @Test(arguments: [("room for the archive only", true), ("room for neither", false)])
    func aFetchThatCannotInstallRefusesBeforeDownloading(_ label: String, archiveFits: Bool) async throws {
        let published = try Self.publish()
        let disk = try Tmpfs(megabytes: 64)
        let cache = disk.path + "/cache"
        _ = try LarderCache(at: cache)
        let onboarding = published.onboarding
        let manifest = try Manifest(
            decoding: Array(try Data(contentsOf: URL(fileURLWithPath: published.origin.root + "/bundles/\(onboarding.bundleDigest.hex)/manifest.json"))))
        let objects = Set(manifest.files.map(\.digest)).reduce(Int64(0)) { total, digest in
            total + manifest.files.first { $0.digest == digest }!.size
        }
        // 770 kB of archive, 1.6 MB of objects: the install peaks at about 2.4 MB.
        try disk.fill(leaving: archiveFits ? onboarding.archiveSize + objects / 2 : objects / 2)
        // Rate-limited, so that what nginx sends before the client hangs up is what it asked for.
        let origin = published.origin.base.appendingPathComponent("rate/2000k/").absoluteString
        try published.origin.clearAccessLog()
        for attempt in 1...3 {
            let full = try await LarderProcess.run(["cache", "fetch", onboarding.bundleDigest.hex, "--origin", origin, "--cache", cache])
            #expect(full.status == 73, "\(label), attempt \(attempt): \(full)")
            #expect(full.stderr.contains("not enough space to fetch and install the bundle"), "\(label), attempt \(attempt): \(full)")
            #expect(full.stderr.contains("nothing was downloaded"), "\(label), attempt \(attempt): \(full)")
        }
        // Three attempts together sent less than a quarter of the archive: the headers of its
        // answer at most (none at all when even the objects cannot fit).
        let sent = SharedCacheFetchTests.archiveBytes(published.origin.accessLog, bundle: onboarding.bundleDigest)
        #expect(sent < onboarding.archiveSize / 4, "\(label): \(sent) bytes of the \(onboarding.archiveSize)-byte archive sent")
        if !archiveFits {
            #expect(!published.origin.accessLog.contains { $0.contains("\(onboarding.bundleDigest.hex).tar.gz") }, "\(published.origin.accessLog)")
        }
        try await expectUsable(cache, holding: [])

        try disk.removeFillers()
        let later = try await fetch(onboarding.bundleDigest, from: published, into: cache)
        #expect(later.status == 0, "\(later)")
        try await expectUsable(cache, holding: [onboarding.bundleDigest])
    }
}
