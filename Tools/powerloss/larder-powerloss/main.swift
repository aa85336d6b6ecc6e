import Foundation
import LarderCache
import LarderToolSupport

// larder-powerloss: the workload, the checker and the crash-state explorer behind
// Tools/powerloss.sh (which sets up the FUSE disk, loop devices and mounts, and tears them down).
//
//   larder-powerloss init --cache <dir>
//   larder-powerloss workload installs|maintenance|captures --cache <dir> --marks <file> --archives <dir>
//       [--rounds N] [--count N] [--seed S]
//   larder-powerloss check-server --log <dir> --archives <dir> --probe <archive> --journey-key <k> --journey-origin <url>
//   larder-powerloss explore --log <dir> --archives <dir> --probe <archive> --journey-key <k> --journey-origin <url>
//       --fs ext4|btrfs --mount <dir> --state-file <file> --states N --seed S
//       [--subsets K] [--fsck-every N] [--reproduction <dir>] [--durability <name>] [--summary <file>]
//   larder-powerloss replay <reproduction> --mount <dir> --state-file <file>
//   larder-powerloss self-test-children

/// Writes a line to standard output at once (unbuffered: the explorer reads the checker's
/// answers through a pipe).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

struct Options {
    var values: [String: String] = [:]
    var positional: [String] = []

    init(_ arguments: ArraySlice<String>) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument.hasPrefix("--") {
                values[argument] = iterator.next() ?? ""
            } else {
                positional.append(argument)
            }
        }
    }

    func required(_ name: String) throws -> String {
        guard let value = values[name], !value.isEmpty else { throw ToolError("missing \(name)") }
        return value
    }

    func number(_ name: String, default fallback: Int) throws -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), value >= 0 else { throw ToolError("\(name) needs a number, not '\(text)'") }
        return value
    }
}

func checkerArguments(_ options: Options, log: String, archives: String, probe: String) throws -> [String] {
    [
        "--log", log, "--archives", archives, "--probe", probe, "--journey-key", try options.required("--journey-key"),
        "--journey-origin", try options.required("--journey-origin"),
    ]
}

func makeChecker(_ options: Options) throws -> CacheChecker {
    let log = try WriteLog(folder: try options.required("--log"))
    let archives = try Archives(folder: try options.required("--archives"))
    let probe = try Archives.entry(at: try options.required("--probe"))
    guard let origin = URL(string: try options.required("--journey-origin")) else { throw ToolError("--journey-origin is not a URL") }
    return CacheChecker(
        operations: try log.operations(), objects: archives.objects, probe: probe, journeyKey: try options.required("--journey-key"),
        journeyOrigin: origin)
}

/// Reads `check <root> <point>` lines and answers each with `ok` or `bad <problems>`.
func serveChecks(_ options: Options) async throws {
    let checker = try makeChecker(options)
    while let line = readLine() {
        let words = line.split(separator: " ").map(String.init)
        guard words.count == 3, words[0] == "check", let point = Int(words[2]) else {
            emit("bad the explorer sent '\(line)'")
            continue
        }
        let problems = await checker.check(root: words[1], point: point)
        emit(problems.isEmpty ? "ok" : "bad " + problems.joined(separator: " | ").replacingOccurrences(of: "\n", with: " "))
    }
}

/// User and system time of this process or of its waited-for children (`getrusage(2)`).
func processorSeconds(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who.rawValue), &usage)
    let seconds = Double(usage.ru_utime.tv_sec) + Double(usage.ru_stime.tv_sec)
    return seconds + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Where the time went: wall time by phase, and processor time.
func reportTime(_ explorer: Explorer) {
    emit("time by phase: " + explorer.phases.sorted { $0.key < $1.key }.map { String(format: "%@ %.1f s", $0.key, $0.value) }.joined(separator: ", "))
    emit(String(format: "processor time: %.1f s explorer, %.1f s checker and fsck", processorSeconds(RUSAGE_SELF), processorSeconds(RUSAGE_CHILDREN)))
    emit("bad verdicts a second look did not repeat (counted as bad): \(explorer.unconfirmed.count)")
    emit("states whose new loop device held stale cached blocks: \(explorer.statesWithStaleBlocks) (\(explorer.staleBlocksDropped) blocks, dropped before the mount)")
}

func explore(_ options: Options) throws {
    let logFolder = try options.required("--log")
    let log = try WriteLog(folder: logFolder)
    let fileSystem = StateMount.FileSystem(rawValue: try options.required("--fs"))
    guard let fileSystem else { throw ToolError("--fs is ext4 or btrfs") }
    let count = try options.number("--states", default: 100)
    let seed = UInt64(try options.number("--seed", default: 1))
    let archives = try options.required("--archives")
    let probe = try options.required("--probe")
    let durability = options.values["--durability"] ?? "default"
    let settings = Explorer.Settings(
        fileSystem: fileSystem, mountPoint: try options.required("--mount"),
        stateFile: try options.required("--state-file"), fsckEvery: try options.number("--fsck-every", default: 50),
        reproductionFolder: options.values["--reproduction"],
        checkerArguments: try checkerArguments(options, log: logFolder, archives: archives, probe: probe),
        checkTimeout: 120 * (Double(ProcessInfo.processInfo.environment["LARDER_TEST_TIME_SCALE"] ?? "1") ?? 1))
    let states = log.plan(count: count, subsets: try options.number("--subsets", default: 3), seed: seed)
    let operations = try log.operations()
    let flushes = log.records.prefix(log.end).filter { $0.kind == .flush }.count
    let writes = log.records.prefix(log.end).filter { $0.kind == .write || $0.kind == .zero }.count
    emit("log: \(log.end) records (\(writes) writes, \(flushes) flushes, \(operations.count) operations, \(operations.filter { $0.ack != nil }.count) acknowledged)")
    let explorer = try Explorer(log: log, settings: settings)
    let started = Date()
    let result = try explorer.explore(states) { number, verdict in
        if !verdict.problems.isEmpty { emit("BAD state \(number) of the run, \(verdict.state): \(verdict.problems.joined(separator: " | "))") }
        if (number + 1) % 100 == 0 {
            FileHandle.standardError.write(Data("powerloss: \(number + 1)/\(states.count) states, \(Int(Date().timeIntervalSince(started))) s\n".utf8))
        }
    }
    let seconds = Date().timeIntervalSince(started)
    emit(String(format: "explored %d states in %.1f s: %.0f states per minute on one core (%d fsck runs)", states.count, seconds,
                 Double(states.count) / seconds * 60, result.fscks))
    reportTime(explorer)
    var line = "powerloss: \(states.count) states on \(fileSystem.rawValue) (\(durability)): \(result.bad.count) bad"
    if !result.bad.isEmpty, let folder = settings.reproductionFolder {
        let run = [
            "fs": fileSystem.rawValue, "durability": durability, "seed": String(seed), "journey-key": try options.required("--journey-key"),
            "journey-origin": try options.required("--journey-origin"),
        ]
        let saved = try Reproduction.save(result.bad, log: log, archives: archives, probe: probe, run: run, into: folder)
        line += " (saved in \(saved); replay: Tools/powerloss.sh --replay \(saved))"
    }
    if let summary = options.values["--summary"] { try (line + "\n").write(toFile: summary, atomically: false, encoding: .utf8) }
    emit(line)
}

/// Replays the states a reproduction saved, printing each verdict.
func replay(_ options: Options) throws -> Int32 {
    guard let folder = options.positional.first else { throw ToolError("replay needs the reproduction folder") }
    let run = try String(contentsOfFile: folder + "/run", encoding: .utf8).split(separator: "\n").reduce(into: [String: String]()) {
        let pair = $1.split(separator: "=", maxSplits: 1).map(String.init)
        if pair.count == 2 { $0[pair[0]] = pair[1] }
    }
    guard let fileSystem = StateMount.FileSystem(rawValue: run["fs"] ?? "") else { throw ToolError("\(folder)/run names no file system") }
    let log = try WriteLog(folder: folder + "/log")
    var arguments = Options([][...])
    arguments.values = ["--journey-key": run["journey-key"] ?? "", "--journey-origin": run["journey-origin"] ?? ""]
    let settings = Explorer.Settings(
        fileSystem: fileSystem, mountPoint: try options.required("--mount"),
        stateFile: try options.required("--state-file"), fsckEvery: 1, reproductionFolder: nil,
        checkerArguments: try checkerArguments(arguments, log: folder + "/log", archives: folder + "/archives", probe: folder + "/probe.tar.gz"),
        checkTimeout: 600)
    let states = try String(contentsOfFile: folder + "/states", encoding: .utf8).split(separator: "\n").map { line throws -> CrashState in
        let words = line.split(separator: " ").map(String.init)
        guard words.count >= 2 else { throw ToolError("\(folder)/states: '\(line)' is not '<point> <mode>'") }
        return try CrashState(parsing: words[0], words[1])
    }.sorted { $0.point < $1.point }
    let explorer = try Explorer(log: log, settings: settings)
    let result = try explorer.explore(states) { _, verdict in
        emit("\(verdict.state): " + (verdict.problems.isEmpty ? "good" : "BAD: " + verdict.problems.joined(separator: " | ")))
    }
    reportTime(explorer)
    emit("powerloss: replayed \(states.count) states on \(fileSystem.rawValue) (\(run["durability"] ?? "?")): \(result.bad.count) bad")
    return result.bad.isEmpty ? 0 : 1
}

func runWorkload(_ options: Options) throws {
    guard let role = options.positional.first else { throw ToolError("workload needs a role") }
    let seed = UInt64(try options.number("--seed", default: 1))
    var workload = Workload(
        cacheRoot: try options.required("--cache"), archives: try Archives(folder: try options.required("--archives")),
        marks: try Marks(path: try options.required("--marks"), prefix: "\(role)\(ProcessInfo.processInfo.processIdentifier)"),
        rounds: try options.number("--rounds", default: 2), random: SeededGenerator(seed: seed))
    switch role {
    case "installs": try workload.installs()
    case "maintenance": try workload.maintenance()
    case "captures": try workload.captures(count: try options.number("--count", default: 20))
    default: throw ToolError("unknown role '\(role)' (installs, maintenance, captures)")
    }
}

/// Reports a failed command and exits 1.
func fail(_ error: any Error) -> Never {
    FileHandle.standardError.write(Data("larder-powerloss: \(error)\n".utf8))
    exit(1)
}

// No `await` at the top level: it would make all of this code async, run on the main actor's
// executor. The explorer, which blocks on children for hours, runs on the main thread itself;
// only the checker, which calls the async cache API, runs in a task (main waits in dispatchMain).
let arguments = CommandLine.arguments
let options = Options(arguments.dropFirst(2))
do {
    switch arguments.count > 1 ? arguments[1] : "" {
    case "init": _ = try LarderCache(at: try options.required("--cache"))
    case "workload": try runWorkload(options)
    case "check-server":
        Task.detached { [options] in
            do { try await serveChecks(options) } catch { fail(error) }
            exit(0)
        }
        dispatchMain()
    case "explore": try explore(options)
    case "replay": exit(try replay(options))
    case "self-test-children":
        let failures = try childSelfTest()
        for failure in failures { emit("self-test FAILED: \(failure)") }
        emit("self-test: the explorer's waits on its children: \(failures.isEmpty ? "all bounded" : "\(failures.count) failed")")
        exit(failures.isEmpty ? 0 : 1)
    default:
        FileHandle.standardError.write(Data("usage: larder-powerloss init|workload|check-server|explore|replay|self-test-children … (see Tools/powerloss.sh)\n".utf8))
        exit(64)
    }
} catch {
    fail(error)
}
