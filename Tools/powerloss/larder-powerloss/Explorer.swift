import Foundation

/// Builds, mounts and checks crash states one after another on one loop device, and saves what
/// a failing state needs to be replayed.
final class Explorer {
    struct Settings {
        var fileSystem: StateMount.FileSystem
        var mountPoint: String
        var stateFile: String
        /// Run the file system's own checker after every `fsckEvery`-th state (0: never).
        var fsckEvery: Int
        /// Where a failing run saves its reproduction.
        var reproductionFolder: String?
        /// Arguments for the checker process (its log, archives and journey scope).
        var checkerArguments: [String]
        var checkTimeout: Double
    }

    struct Verdict {
        var state: CrashState
        var problems: [String]
        /// What the checker was doing when it hung on this state (``HangReport``).
        var hangReport: String?
    }

    private let log: WriteLog
    private let settings: Settings
    private let builder: StateBuilder
    private let checker: CheckerProcess
    /// Seconds spent building, mounting, checking, unmounting and in fsck, in all.
    private(set) var phases: [String: Double] = [:]
    /// Bad verdicts a second look (the state built and mounted again, a new checker process)
    /// did not repeat, with what the first look said; they count as bad all the same.
    private(set) var unconfirmed: [Verdict] = []
    /// States before whose mount the loop device still held stale blocks after `BLKFLSBUF`,
    /// and how many blocks that was in all (dropped again before the mount).
    private(set) var statesWithStaleBlocks = 0
    private(set) var staleBlocksDropped = 0

    init(log: WriteLog, settings: Settings) throws {
        self.log = log
        self.settings = settings
        builder = try StateBuilder(log: log, statePath: settings.stateFile)
        checker = CheckerProcess(arguments: settings.checkerArguments, timeout: settings.checkTimeout)
    }

    /// Checks each state in order.
    /// - Parameter progress: called after each state with its verdict.
    /// - Returns: the failing states' verdicts and how many file-system checks ran.
    func explore(_ states: [CrashState], progress: (Int, Verdict) -> Void) throws -> (bad: [Verdict], fscks: Int) {
        var bad: [Verdict] = []
        var fscks = 0
        for (number, state) in states.enumerated() {
            let runFsck = settings.fsckEvery > 0 && number % settings.fsckEvery == 0
            var verdict = Verdict(state: state, problems: try check(state, fsck: runFsck), hangReport: checker.lastHangReport)
            if let report = verdict.hangReport {
                FileHandle.standardError.write(Data("powerloss: the checker hung on state \(number) of the run, \(state):\n\(report)\n".utf8))
            }
            if !verdict.problems.isEmpty {
                // Bad at the first look is bad. A second look (the state built and mounted
                // again, a new checker process, fsck) only says whether it repeats.
                checker.stop()
                let again = try check(state, fsck: true)
                if again.isEmpty {
                    unconfirmed.append(verdict)
                    verdict.problems.append("(good at a second look with a new checker)")
                }
            }
            if runFsck { fscks += 1 }
            if !verdict.problems.isEmpty { bad.append(verdict) }
            progress(number, verdict)
        }
        checker.stop()
        return (bad, fscks)
    }

    /// Builds one state, attaches a new loop device to it, mounts it, has the checker look,
    /// unmounts, optionally runs fsck, and detaches the device.
    func check(_ state: CrashState, fsck: Bool) throws -> [String] {
        try timed("build") { try builder.build(state) }
        let loop = try timed("attach") { try LoopDevice(attachingTo: settings.stateFile) }
        let problems = try check(state, fsck: fsck, on: StateMount(device: loop.path, point: settings.mountPoint, fileSystem: settings.fileSystem))
        try timed("detach") { try loop.detach() }
        return problems
    }

    private func check(_ state: CrashState, fsck: Bool, on mount: StateMount) throws -> [String] {
        try timed("drop") { try requireNoStaleBlocks(mount) }
        if let failure = timed("mount", { mount.mount() }) { return [failure] }
        var problems: [String]
        do {
            problems = try timed("check") { try checker.check(root: settings.mountPoint, point: state.point) }
        } catch {
            try? mount.unmount()
            throw error
        }
        try timed("unmount") { try mount.unmount() }
        if fsck, let complaint = try timed("fsck", { try mount.fsck(timeout: settings.checkTimeout) }) { problems.append(complaint) }
        return problems
    }

    /// Makes sure the new loop device's page cache holds no block that differs from the state
    /// just built (it never should: the check guards the harness itself), dropping them
    /// (`BLKFLSBUF`) until none does.
    /// - Throws: ``ToolError`` when stale blocks stay after 20 tries, rather than check a
    ///   state the mount would not read as built.
    private func requireNoStaleBlocks(_ mount: StateMount) throws {
        for attempt in 0..<20 {
            if let failure = mount.dropCachedBlocks() { throw ToolError(failure) }
            let stale = try mount.staleCachedBlocks(comparedWith: builder.image).get()
            if stale == 0 { return }
            if attempt == 0 { statesWithStaleBlocks += 1 }
            staleBlocksDropped += stale
            usleep(10_000)
        }
        throw ToolError("the loop device \(mount.device) keeps cached blocks that differ from the state built")
    }

    private func timed<T>(_ phase: String, _ body: () throws -> T) rethrows -> T {
        let started = DispatchTime.now().uptimeNanoseconds
        defer { phases[phase, default: 0] += Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
        return try body()
    }
}

/// A failing run's reproduction: base.img and the log, the archives the checker reads, the run's
/// settings and each failing state (point, mode, subset seed), replayed by
/// `Tools/powerloss.sh --replay <folder>`.
enum Reproduction {
    /// Saves the run's files (once) and appends the failing states.
    /// - Returns: the folder.
    static func save(_ bad: [Explorer.Verdict], log: WriteLog, archives: String, probe: String, run: [String: String], into folder: String) throws
        -> String
    {
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/log", withIntermediateDirectories: true)
        for name in ["base.img", "records", "data"] where !manager.fileExists(atPath: folder + "/log/" + name) {
            try manager.copyItem(atPath: log.folder + "/" + name, toPath: folder + "/log/" + name)
        }
        if !manager.fileExists(atPath: folder + "/archives") { try manager.copyItem(atPath: archives, toPath: folder + "/archives") }
        if !manager.fileExists(atPath: folder + "/probe.tar.gz") { try manager.copyItem(atPath: probe, toPath: folder + "/probe.tar.gz") }
        let settings = run.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)\n" }.joined()
        try settings.write(toFile: folder + "/run", atomically: true, encoding: .utf8)
        let lines = bad.map { "\($0.state.argument) # \($0.problems.joined(separator: " | "))\n" }.joined()
        try lines.write(toFile: folder + "/states", atomically: true, encoding: .utf8)
        for verdict in bad {
            guard let report = verdict.hangReport else { continue }
            try report.write(toFile: folder + "/hang-at-point-\(verdict.state.point).txt", atomically: true, encoding: .utf8)
        }
        return folder
    }
}
