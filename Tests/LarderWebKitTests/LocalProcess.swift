import Foundation
import Glibc
import LarderSystem

/// Another local process a test starts (a shell that connects where a test says), with
/// posix_spawn (not Foundation's Process, whose wait can stall once GLib handles SIGCHLD in
/// this process), its output thrown away, and every wait bounded.
enum LocalProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `arguments`; returns its pid.
    static func start(_ arguments: [String]) throws -> pid_t {
        let spawn = Spawn(command: arguments, standardInput: .null, standardOutput: .null, standardError: .null, signals: .clean(defaulting: []))
        do { return try spawn.start() } catch { throw Failure(description: error.description) }
    }

    /// Runs `arguments` to its end; past `limit` (scaled) it is killed.
    /// - Returns: its exit status (128 + the signal when killed).
    static func run(_ arguments: [String], within limit: Duration) throws -> Int32 {
        let pid = try start(arguments)
        let deadline = ContinuousClock.now + limit.scaledForTests
        var status: Int32 = 0
        while true {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            if done < 0 && errno != EINTR { throw Failure(description: "waitpid failed: \(String(cString: strerror(errno)))") }
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            usleep(20_000)
        }
        return ChildExit.code(waitStatus: status)
    }

    /// Ends a process this test started and reaps it.
    static func stop(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
