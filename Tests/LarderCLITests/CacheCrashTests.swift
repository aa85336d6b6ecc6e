import Foundation
import LarderCache
import LarderFormat
import Testing

/// Archives big enough that killing `larder cache install` at a random moment lands in the
/// middle of writing, placing or committing.
final class CrashFixture {
    let scratch: Scratch
    let cache: String
    var archives: [String] = []

    init(bundles: Int = 3, filesPerBundle: Int = 120, fileSize: Int = 40_000) throws {
        scratch = try Scratch()
        cache = scratch.path + "/cache"
        var state: UInt64 = 7
        for bundle in 0..<bundles {
            let source = scratch.path + "/src\(bundle)"
            try FileManager.default.createDirectory(atPath: source + "/data", withIntermediateDirectories: true)
            var links = ""
            for file in 0..<filesPerBundle {
                var bytes = [UInt8](repeating: 0, count: fileSize)
                for index in bytes.indices {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    bytes[index] = UInt8(truncatingIfNeeded: state >> 40) % 64 + 32
                }
                // A few files are shared between bundles, so objects are reused and swept.
                let name = file < 10 ? "shared\(file).txt" : "b\(bundle)-\(file).txt"
                if file < 10 { bytes = Array(repeating: UInt8(65 + file), count: fileSize) }
                try Data(bytes).write(to: URL(fileURLWithPath: source + "/data/" + name))
                links += "<a href=\"data/\(name)\">\(name)</a>\n"
            }
            try Data("<!doctype html>\n\(links)".utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
            let result = try CLI.run(["pack", source, "-o", scratch.path + "/archives", "--level", "1", "--json"])
            guard result.status == 0,
                let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                let path = report["archivePath"] as? String
            else { throw CLIError("pack failed: \(result.stderr)") }
            archives.append(path)
        }
    }

    /// Opens the cache and checks everything a crash must not break: the cache opens, verify
    /// is clean, every visible bundle has all its objects, and no staging file survives.
    func checkConsistency(_ round: Int) throws {
        let opened = try LarderCache(at: cache)
        let verification = try opened.verify()
        #expect(verification.isClean, "round \(round): corrupt \(verification.corrupt)")
        for bundle in try opened.bundles() where bundle.complete {
            let lease = try opened.lease(bundle.digest)
            for file in lease.manifest.files {
                #expect(FileManager.default.fileExists(atPath: try lease.fileLocation(at: file.path)), "round \(round): \(file.path)")
            }
            lease.release()
        }
        let staging = try FileManager.default.contentsOfDirectory(atPath: cache + "/staging")
        #expect(staging.isEmpty, "round \(round): staging left \(staging)")
    }
}

/// Starts a `larder` process, kills it with SIGKILL after `delay`, and waits for it.
func runAndKill(_ arguments: [String], after delay: TimeInterval) throws {
    let pid = try CLI.spawn([CLI.executable] + arguments)
    Thread.sleep(forTimeInterval: delay)
    kill(pid, SIGKILL)
    _ = try CLI.wait(pid)
}

@Suite(.serialized) struct CacheCrashTests {
    /// 50 rounds: an install or a sweep killed at a random point, then a consistency check.
    @Test func killedInstallsAndSweepsLeaveAConsistentCache() throws {
        let fixture = try CrashFixture()
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &random)
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        // Kill anywhere from the start to a little after an uninterrupted install would end.
        let started = Date()
        let probe = try CLI.run(["cache", "install", fixture.archives[0], "--cache", fixture.cache])
        let installMilliseconds = max(20, Int(Date().timeIntervalSince(started) * 1300))
        #expect(probe.status == 0, "\(probe.stderr)")
        _ = try LarderCache(at: fixture.cache).evict(toBytes: 0)
        var completedInstalls = 0
        for round in 0..<50 {
            let archive = fixture.archives[next(fixture.archives.count)]
            let delay = Double(next(installMilliseconds)) / 1000
            if round % 5 == 4 {
                // Evict through the library so the next installs have work to do, then kill a sweep.
                _ = try LarderCache(at: fixture.cache).evict(toBytes: 0)
                try runAndKill(["cache", "gc", "--cache", fixture.cache], after: delay / 4)
            } else {
                try runAndKill(["cache", "install", archive, "--cache", fixture.cache], after: delay)
            }
            try fixture.checkConsistency(round)
            completedInstalls += try LarderCache(at: fixture.cache).bundles().count
        }
        // Some kills came after the commit; most came before it.
        #expect(completedInstalls > 0, "seed \(seed), install takes \(installMilliseconds) ms")
    }
}

@Suite(.serialized) struct CacheConcurrencyTests {
    /// Four processes install, read, evict and sweep one cache at once for a bounded number of
    /// rounds; the cache ends consistent.
    @Test func fourProcessesEndConsistent() throws {
        let fixture = try CrashFixture(bundles: 3, filesPerBundle: 40, fileSize: 20_000)
        let larder = CLI.executable
        let cache = fixture.cache
        let archives = fixture.archives.map { "'\($0)'" }.joined(separator: " ")
        // The readers start with the cache there (empty): a missing cache folder is an error.
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let scripts = [
            "for i in $(seq 1 6); do for a in \(archives); do '\(larder)' cache install \"$a\" --cache '\(cache)' >/dev/null || exit 1; done; done",
            "for i in $(seq 1 25); do '\(larder)' cache verify --cache '\(cache)' >/dev/null || exit 1; '\(larder)' cache ls --cache '\(cache)' >/dev/null || exit 1; done",
            "for i in $(seq 1 25); do '\(larder)' cache evict --to 1MB --cache '\(cache)' >/dev/null || exit 1; done",
            "for i in $(seq 1 25); do '\(larder)' cache gc --cache '\(cache)' >/dev/null; s=$?; [ $s -eq 0 ] || [ $s -eq 75 ] || exit 1; done",
        ]
        let processes = try scripts.enumerated().map { index, script in
            try CLI.spawn(["/bin/sh", "-c", "exec 2>'\(fixture.scratch.path)/stderr-\(index)'; " + script])
        }
        let statuses = try processes.map(CLI.wait)
        let errors = (0..<4).map { (try? String(contentsOfFile: fixture.scratch.path + "/stderr-\($0)", encoding: .utf8)) ?? "" }
        #expect(statuses == [0, 0, 0, 0], "\(errors)")
        try fixture.checkConsistency(0)
    }
}
