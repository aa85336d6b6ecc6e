import Foundation
import LarderCache
import LarderFormat
import LarderPack
import LarderTestSupport
import Testing

/// A 512 MB tmpfs mounted for one test (needs root: the CI and test machines run as root) and
/// unmounted after it.
final class Tmpfs: Sendable {
    let path: String

    /// Whether this process may mount one.
    static let isAvailable: Bool = {
        guard geteuid() == 0, let probe = try? Tmpfs(megabytes: 1) else { return false }  // no mount: the tests are skipped, and say so
        _ = probe
        return true
    }()

    init(megabytes: Int) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("larder-tmpfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(megabytes)m,mode=0755") == 0 else {
            let error = String(cString: strerror(errno))
            rmdir(path)
            throw IntegrationError("cannot mount a tmpfs on \(path): \(error)")
        }
    }

    deinit {
        umount2(path, Int32(MNT_DETACH))
        rmdir(path)
    }

    /// Makes the file system read-only (`mount -o remount,ro`); it is unmounted as usual.
    ///
    /// The kernel refuses (`EBUSY`) while any process has a file there open for writing or
    /// removed but still open. The ThreadSanitizer pass of a fresh-clone `.ci/run` was refused
    /// once, by a holder nobody saw; so it tries again for up to 5 s (scaled, see
    /// `testTimeScale`) and then names every process with a file open there.
    func remountReadOnly() throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5).scaledForTests
        while mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) != 0 {
            let error = errno
            guard error == EBUSY, clock.now < deadline else {
                let holders = error == EBUSY ? "; open there: " + openFiles().joined(separator: ", ") : ""
                throw IntegrationError("cannot remount \(path) read-only: \(String(cString: strerror(error)))\(holders)")
            }
            usleep(50_000)
        }
    }

    /// "<pid> (<command>): <file>" for each file under the mount point a process has open.
    private func openFiles() -> [String] {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []  // a diagnosis only
        return processes.filter { Int32($0) != nil }.flatMap { pid -> [String] in
            let folder = "/proc/\(pid)/fd"
            let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap { fd in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + fd), target.hasPrefix(path + "/") else {
                    return nil
                }
                return "\(pid) (\(command)): \(target)"
            }
        }
    }

    /// Bytes free.
    var free: Int64 {
        var info = statvfs()
        return statvfs(path, &info) == 0 ? Int64(info.f_bavail) * Int64(info.f_frsize) : 0
    }

    /// Takes space with a file until `bytes` are left free.
    func fill(leaving bytes: Int64) throws {
        let filler = path + "/filler-\(UUID().uuidString)"
        // Close-on-exec: a process another test spawns meanwhile (nginx stays for long) must not
        // inherit the filler and keep its space after it is removed.
        let fd = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IntegrationError("cannot create \(filler)") }
        defer { close(fd) }
        let take = free - bytes
        guard take > 0, posix_fallocate(fd, 0, off_t(take)) == 0 else { throw IntegrationError("cannot take \(take) bytes of \(path)") }
    }

    func removeFillers() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: path) where name.hasPrefix("filler-") {
            try FileManager.default.removeItem(atPath: path + "/" + name)
        }
    }
}

/// A full disk during a download or an install is its own error (exit 73), leaves nothing
/// behind, and the cache keeps working: gc, purge and a later fetch.
@Suite(.serialized, .enabled(if: Tmpfs.isAvailable, "needs root to mount a tmpfs")) struct DiskFullTests {
    struct Published {
        let origin: Origin
        let work: Workspace
        let onboarding: PackReport
        let paywall: PackReport
    }

    static func publish() throws -> Published {
        let origin = try Origin()
        let work = try Workspace()
        // The fonts as written, so that the sizes below hold (with WOFF2 subsets onboarding's
        // archive is 130 kB and fits in 300 kB).
        let onboarding = try work.packWithFontsAsWritten(sampleBundles + "/onboarding")
        let paywall = try work.packWithFontsAsWritten(sampleBundles + "/paywall")
        try origin.publish([onboarding.archivePath, paywall.archivePath])
        return Published(origin: origin, work: work, onboarding: onboarding, paywall: paywall)
    }

    func fetch(_ bundle: Digest, from published: Published, into cache: String) async throws -> ProcessOutcome {
        try await LarderProcess.run(["cache", "fetch", bundle.hex, "--origin", published.origin.base.absoluteString, "--cache", cache])
    }

    /// No partial download and no staging leftovers; the cache verifies and gc and purge work.
    func expectUsable(_ cache: String, holding bundles: [Digest]) async throws {
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/downloads").filter { !$0.hasSuffix(".lock") }.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/staging").isEmpty)
        let opened = try LarderCache(at: cache)
        #expect(Set(try opened.bundles().map(\.digest)) == Set(bundles))
        #expect(try opened.verify().isClean)
        let gc = try await LarderProcess.run(["cache", "gc", "--cache", cache])
        #expect(gc.status == 0, "\(gc)")
    }

    @Test(arguments: [(true, 300_000), (false, 300_000), (false, 1_100_000)] as [(Bool, Int64)])
    func runningOutOfSpaceIsItsOwnErrorAndLeavesNothingBehind(objects: Bool, free: Int64) async throws {
        let published = try Self.publish()
        let disk = try Tmpfs(megabytes: 512)
        let cache = disk.path + "/cache"
        var held: [Digest] = []
        if objects {
            // Holding paywall, onboarding comes as objects (about 470 kB of them).
            let first = try await fetch(published.paywall.bundleDigest, from: published, into: cache)
            #expect(first.status == 0, "\(first)")
            held = [published.paywall.bundleDigest]
        } else {
            _ = try LarderCache(at: cache)
        }
        // 300 kB: the download itself runs out. 1.1 MB: the 770 kB archive arrives, then its
        // install (1.6 MB of files) runs out.
        try disk.fill(leaving: free)
        let full = try await fetch(published.onboarding.bundleDigest, from: published, into: cache)
        #expect(full.status == 73, "\(full)")
        #expect(full.stderr.contains("space"), "\(full)")
        try await expectUsable(cache, holding: held)

        try disk.removeFillers()
        let later = try await fetch(published.onboarding.bundleDigest, from: published, into: cache)
        #expect(later.status == 0, "\(later)")
        try await expectUsable(cache, holding: held + [published.onboarding.bundleDigest])
        let purge = try await LarderProcess.run(["cache", "purge", "--cache", cache])
        #expect(purge.status == 0, "\(purge)")
    }
}
