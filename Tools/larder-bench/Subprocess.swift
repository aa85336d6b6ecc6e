import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How one child process ran.
struct ProcessResult {
    var status: Int32
    var seconds: Double
    /// Peak resident set size in bytes (`ru_maxrss` from `wait4`).
    var peakRSS: Int
}

enum Subprocess {
    /// Runs `arguments` (the first is the program, looked up on PATH) and measures its wall
    /// time and peak memory. Standard output goes to `stdoutPath` when given.
    static func run(_ arguments: [String], stdoutPath: String? = nil) throws -> ProcessResult {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdoutPath {
            posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let status = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        guard status == 0 else { throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(status)))") }
        var waitStatus: Int32 = 0
        var usage = rusage()
        while wait4(pid, &waitStatus, 0, &usage) == -1 {
            guard errno == EINTR else { throw BenchError("wait4 failed") }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exitStatus = (waitStatus & 0x7f) == 0 ? (waitStatus >> 8) & 0xff : 128 + (waitStatus & 0x7f)
        return ProcessResult(status: exitStatus, seconds: seconds, peakRSS: Int(usage.ru_maxrss) * 1024)
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
