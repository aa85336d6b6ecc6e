#if os(Linux)
import Glibc

/// How a child process ended, as the exit code Larder reports: the code it exited with, or
/// 128 + the signal that ended it (as a shell reports it).
package enum ChildExit {
    /// The exit code in a `waitpid(2)` status.
    package static func code(waitStatus status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Waits for the child `pid` to end and reaps it (`waitpid(2)`, retried after `EINTR`).
    /// - Returns: its exit code (``code(waitStatus:)``).
    /// - Throws: ``Errno`` (`ECHILD`: not a child of this process, or already reaped).
    package static func wait(for pid: pid_t) throws(Errno) -> Int32 {
        var status: Int32 = 0
        try nothingOrErrno { waitpid(pid, &status, 0) == pid ? 0 : -1 }
        return code(waitStatus: status)
    }

    /// Waits for the child `pid` until `deadline` at most (`waitpid(2)` with `WNOHANG`, every
    /// 20 ms); one still running then is killed (SIGKILL) and reaped. Every wait is bounded.
    /// - Returns: its exit code (``code(waitStatus:)``): 128 + 9 when it was killed.
    /// - Throws: ``Errno`` (`ECHILD`: not a child of this process, or already reaped).
    package static func wait(for pid: pid_t, killingAfter deadline: ContinuousClock.Instant) throws(Errno) -> Int32 {
        var status: Int32 = 0
        while try valueOrErrno({ waitpid(pid, &status, WNOHANG) }) != pid {
            if ContinuousClock.now > deadline {
                _ = Glibc.kill(pid, SIGKILL)
                return try wait(for: pid)
            }
            usleep(20_000)
        }
        return code(waitStatus: status)
    }

    /// Ends the child `pid` (SIGKILL) and reaps it; one already reaped is left as it is.
    package static func kill(_ pid: pid_t) {
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
#endif
