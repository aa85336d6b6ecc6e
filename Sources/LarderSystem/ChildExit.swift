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
}
#endif
