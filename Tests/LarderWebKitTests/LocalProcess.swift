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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = withCleanSpawnAttributes(defaulting: []) { posix_spawn(&pid, arguments[0], &actions, $0, &argv, environ) }
        guard status == 0 else { throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(status)))") }
        return pid
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
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Ends a process this test started and reaps it.
    static func stop(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
