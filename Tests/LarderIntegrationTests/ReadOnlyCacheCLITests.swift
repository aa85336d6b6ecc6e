import Foundation
import LarderCache
import LarderFormat
import LarderPack
import LarderTestSupport
import Testing

/// `larder cache ls | stats | show | verify | resolve` open the cache read-only: they work on a
/// read-only file system and on another user's cache and change nothing, while the commands
/// that change a cache say it cannot be written (exit 73), also in time.
@Suite(.serialized) struct ReadOnlyCacheCLITests {
    /// A cache at `path` holding the paywall sample, and the URL of one of its fonts.
    struct Filled {
        let work: Workspace
        let report: PackReport
        let font: String

        init(at path: String) async throws {
            work = try Workspace()
            report = try work.pack(sampleBundles + "/paywall")
            let install = try await LarderProcess.run(["cache", "install", report.archivePath, "--cache", path])
            #expect(install.status == 0, "\(install)")
            let manifest = try LarderCache(at: path, configuration: .init(mode: .readOnly)).manifest(report.bundleDigest)
            font = FontURL.prefix + manifest.files.first { $0.role == .font }!.digest.hex
        }
    }

    /// Runs each reading subcommand and checks what it answers.
    func expectReadsWork(_ cache: String, _ filled: Filled, launcher: [String] = []) async throws {
        let hex = filled.report.bundleDigest.hex
        let reads: [(String, [String], String)] = [
            ("ls", ["ls"], String(hex.prefix(12)) + "  paywall"),
            ("ls --json", ["ls", "--json"], #""complete":true"#),
            ("stats", ["stats", "--json"], #""bundles":1"#),
            ("show", ["show", "paywall"], "Digest   \(filled.report.bundleDigest)"),
            ("verify", ["verify"], "OK: "),
            ("resolve", ["resolve", filled.font], "font/woff2"),
        ]
        for (name, arguments, expected) in reads {
            let outcome = try await LarderProcess.run(["cache"] + arguments + ["--cache", cache], launcher: launcher, watchdog: .seconds(30))
            #expect(outcome.status == 0, "\(name): \(outcome)")
            #expect(outcome.stdout.contains(expected), "\(name): \(outcome.stdout)")
            #expect(outcome.stderr.isEmpty, "\(name): \(outcome.stderr)")
        }
    }

    /// Runs each changing subcommand and checks it is refused as not writable.
    func expectChangesRefused(_ cache: String, _ filled: Filled, launcher: [String] = []) async throws {
        let changes: [[String]] = [
            ["verify", "--repair"], ["gc"], ["install", filled.report.archivePath], ["pin", "paywall"], ["evict", "--to", "0"],
            ["purge"],
        ]
        for arguments in changes {
            let outcome = try await LarderProcess.run(["cache"] + arguments + ["--cache", cache], launcher: launcher, watchdog: .seconds(30))
            #expect(outcome.status == 73, "\(arguments): \(outcome)")
            #expect(outcome.stderr.contains("the cache cannot be written here"), "\(arguments): \(outcome.stderr)")
        }
    }

    @Test(.enabled(if: Tmpfs.isAvailable, "needs root to mount a tmpfs"))
    func worksOnAReadOnlyFileSystem() async throws {
        let disk = try Tmpfs(megabytes: 64)
        let cache = disk.path + "/cache"
        let filled = try await Filled(at: cache)
        try disk.remountReadOnly()
        let before = folderSnapshot(disk.path)
        try await expectReadsWork(cache, filled)
        try await expectChangesRefused(cache, filled)

        // In process: the same read-only mode; a read-write open says why it cannot.
        let opened = try LarderCache(at: cache, configuration: .init(mode: .readOnly))
        #expect(try opened.bundles().map(\.digest) == [filled.report.bundleDigest])
        #expect(try opened.verify().isClean)
        #expect { _ = try LarderCache(at: cache) } throws: { ($0 as? CacheError)?.code == .readOnly }
        #expect(folderSnapshot(disk.path) == before)
    }

    /// Without its `-shm` file (removed while no process had the index open), the index is
    /// read as immutable when its log is empty, and refused with a reason when it is not.
    @Test(.enabled(if: Tmpfs.isAvailable, "needs root to mount a tmpfs"))
    func aReadOnlyIndexWithoutItsSharedMemoryFile() async throws {
        let disk = try Tmpfs(megabytes: 64)
        let settled = disk.path + "/settled"
        let filled = try await Filled(at: settled)
        // The last connection checkpointed the log when it closed: the main file has it all.
        for suffix in ["-shm", "-wal"] { try FileManager.default.removeItem(atPath: settled + "/index.sqlite" + suffix) }
        let logged = disk.path + "/logged"
        _ = try await Filled(at: logged)
        try FileManager.default.removeItem(atPath: logged + "/index.sqlite-shm")
        try disk.remountReadOnly()

        try await expectReadsWork(settled, filled)
        let refused = try await LarderProcess.run(["cache", "ls", "--cache", logged])
        #expect(refused.status == 73, "\(refused)")
        #expect(refused.stderr.contains("index.sqlite-shm, which is missing and cannot be created here"), "\(refused)")
    }

    @Test(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func worksOnAnotherUsersCache() async throws {
        let work = try Workspace()
        // Another user must reach the cache: the workspace is root's 0755 folder in /tmp.
        let cache = work.path + "/cache"
        let filled = try await Filled(at: cache)
        let before = folderSnapshot(cache)
        // Root may write anything whatever the modes say, so the cache is read as nobody; that
        // the changes are refused shows the commands did not run as root.
        let nobody = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
        try await expectReadsWork(cache, filled, launcher: nobody)
        try await expectChangesRefused(cache, filled, launcher: nobody)
        #expect(folderSnapshot(cache) == before)
    }
}
