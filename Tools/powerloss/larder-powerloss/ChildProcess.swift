import Foundation
import LarderSystem

/// A child process (the checker, `e2fsck`, `btrfs check`) started with `posix_spawn` and waited
/// for with a deadline, never without one.
///
/// Not Foundation's `Process`: a 10,000-state btrfs run stopped for good at state 5,400 with
/// no fsck or checker left to wait for and the explorer asleep in Foundation's run loop, the
/// way a lost child-exit notification leaves `waitUntilExit()`. Here every wait is a `poll`
/// or a `waitpid(WNOHANG)` loop bounded by the caller's deadline; a child past it is killed.
final class ChildProcess {
    let pid: pid_t
    /// The name reports use: the executable's last path component.
    let name: String
    /// Where the child reads its standard input from (-1 once closed).
    private var input: Int32
    /// Where its standard output (and, when merged, its standard error) arrives.
    private var output: Int32
    private var buffered: [UInt8] = []
    /// Whether the output has ended (end of file, or a failed read).
    private var ended = false
    /// The exit status once reaped: the exit code, or 128 + the signal.
    private(set) var status: Int32?

    /// Starts `arguments[0]` (an absolute path) with a pipe on each of standard input and
    /// output; standard error goes to the output pipe when `mergeErrors`, else it is inherited.
    /// - Throws: ``ToolError`` when it cannot be started.
    init(_ arguments: [String], mergeErrors: Bool) throws {
        // A write to a child that died must be a failed write, not the explorer's end.
        signal(SIGPIPE, SIG_IGN)
        let toChild = try Self.pipeClosedOnExec()
        let fromChild: [Int32]
        do { fromChild = try Self.pipeClosedOnExec() } catch {
            close(toChild[0])
            close(toChild[1])
            throw error
        }
        let spawn = Spawn(
            command: arguments, standardInput: .descriptor(toChild[0]), standardOutput: .descriptor(fromChild[1]),
            standardError: mergeErrors ? .descriptor(fromChild[1]) : .inherit, signals: .clean(defaulting: [SIGPIPE]))
        let pid: pid_t
        do { pid = try spawn.start() } catch {
            for end in toChild + fromChild { close(end) }
            throw ToolError(error.description)
        }
        close(toChild[0])
        close(fromChild[1])
        self.pid = pid
        name = URL(fileURLWithPath: arguments[0]).lastPathComponent
        input = toChild[1]
        output = fromChild[0]
    }

    /// A pipe whose ends no other child inherits (`dup2` in the spawn clears the flag on the
    /// copies the child gets): a checker must see end of input when the explorer closes it.
    /// The explorer starts its children from one thread, so nothing spawns between the two calls.
    private static func pipeClosedOnExec() throws -> [Int32] {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ToolError("pipe failed: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return ends
    }

    deinit {
        kill()
        closeInput()
        if output >= 0 { close(output) }
    }

    /// Writes `line` and a newline to the child's standard input.
    /// - Returns: false when the child no longer reads it (it died or closed its input).
    func send(_ line: String) -> Bool {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Closes the child's standard input: a child that reads to its end then finishes.
    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// The longest line ``readLine(until:)`` keeps.
    static let lineLimit = 1 << 20

    /// One line of the child's output, waiting until `deadline` at most. A child that writes
    /// ``lineLimit`` bytes without a newline gets those bytes as its line (the rest is read as
    /// the next), so a child that never ends its line cannot grow the buffer.
    /// - Returns: nil at end of file (the child closed its output) or at the deadline.
    func readLine(until deadline: Date) -> String? {
        while true {
            if let newline = buffered.prefix(Self.lineLimit).firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            if buffered.count >= Self.lineLimit {
                let line = String(decoding: buffered.prefix(Self.lineLimit), as: UTF8.self)
                buffered.removeFirst(Self.lineLimit)
                return line
            }
            guard readMore(until: deadline) else { return nil }
        }
    }

    /// All the child's output up to its end, waiting until `deadline` at most, keeping the
    /// last `limit` bytes.
    /// - Returns: nil when the output had not ended by the deadline.
    func readToEnd(until deadline: Date, keeping limit: Int = 1 << 20) -> [UInt8]? {
        while readMore(until: deadline) {
            if buffered.count > limit { buffered.removeFirst(buffered.count - limit) }
        }
        guard ended else { return nil }
        defer { buffered = [] }
        return buffered
    }

    /// Appends what the child wrote next to ``buffered``.
    /// - Returns: false at end of file (``ended``), at the deadline or when reading fails.
    private func readMore(until deadline: Date) -> Bool {
        while !ended {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return false }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return false }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(output, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                ended = true
                return false
            }
            buffered += chunk[..<count]
            return true
        }
        return false
    }

    /// Reaps the child if it has exited, waiting until `deadline` at most.
    /// - Returns: its exit status (the exit code, or 128 + the signal), or nil while it runs.
    @discardableResult
    func wait(until deadline: Date) -> Int32? {
        while status == nil {
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid {
                status = ChildExit.code(waitStatus: raw)
            } else if reaped < 0 && errno != EINTR {
                // Not our child any more (reaped elsewhere): nothing left to wait for.
                status = -1
            } else if reaped == 0 {
                guard deadline.timeIntervalSinceNow > 0 else { return nil }
                usleep(2_000)
            }
        }
        return status
    }

    /// Kills the child (SIGKILL) unless it has exited, and reaps it, waiting 10 s at most (a
    /// child in uninterruptible sleep, inside the kernel, can outlast a SIGKILL).
    /// - Returns: false when it was still not gone after that.
    @discardableResult
    func kill() -> Bool {
        guard wait(until: Date()) == nil else { return true }
        Glibc.kill(pid, SIGKILL)
        return wait(until: Date().addingTimeInterval(10)) != nil
    }
}
