import Foundation
import LarderSystem
#if canImport(Glibc)
import Glibc
#endif

/// How one child process ran.
struct ProcessResult {
    var status: Int32
    var seconds: Double
    /// Peak resident set size in bytes: the child's own `VmHWM`, read while it runs.
    var peakRSS: Int
}

enum Subprocess {
    /// Runs `arguments` (the first is the program, looked up on PATH) and measures its wall
    /// time and peak memory. Standard output goes to `stdoutPath` and standard error to
    /// `stderrPath` when given.
    static func run(_ arguments: [String], stdoutPath: String? = nil, stderrPath: String? = nil) throws -> ProcessResult {
        let spawn = Spawn(
            command: arguments, searchesPath: true, standardOutput: stdoutPath.map { .truncating($0) } ?? .inherit,
            standardError: stderrPath.map { .truncating($0) } ?? .inherit)
        let start = DispatchTime.now().uptimeNanoseconds
        let pid: pid_t
        do { pid = try spawn.start() } catch { throw BenchError(error.description) }
        // Not `ru_maxrss`: glibc's posix_spawn runs the child on the parent's memory until
        // exec, and the kernel keeps that memory's high-water mark in the child's maxrss, so it
        // would report this (large) process. The child's own `VmHWM` is read every millisecond
        // until it exits (it only grows, so the last reading is the peak but for that last ms).
        var peak = 0
        while true {
            var info = siginfo_t()
            let waited = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG)
            if waited == 0 && info._sifields._sigchld.si_pid == pid { break }
            if waited == -1 {
                guard errno == EINTR else { throw BenchError("waitid failed: \(String(cString: strerror(errno)))") }
                continue
            }
            peak = max(peak, ProcessMemory.peak(pid)?.bytes ?? 0)
            usleep(1000)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var waitStatus: Int32 = 0
        while waitpid(pid, &waitStatus, 0) == -1 {
            guard errno == EINTR else { throw BenchError("waitpid failed") }
        }
        return ProcessResult(status: ChildExit.code(waitStatus: waitStatus), seconds: seconds, peakRSS: peak)
    }

    /// Runs a shell pipeline with `/bin/sh -c`.
    static func shell(_ command: String) throws -> ProcessResult {
        try run(["/bin/sh", "-c", command])
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
