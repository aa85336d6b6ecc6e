import Foundation
import LarderSystem

/// How a `larder` process ended.
struct ProcessOutcome: Sendable, CustomStringConvertible {
    /// The exit status, or 128 + the signal that ended it.
    var status: Int32
    /// Wall time from start to exit, in seconds.
    var elapsed: Double
    /// The most resident memory it had, in bytes: its own `VmHWM`, read every 2 ms while it
    /// ran. (`ru_maxrss` would not do: glibc's posix_spawn runs the child on this process's
    /// memory until exec, and the kernel counts that memory's high-water mark as the child's.)
    var peakMemory: Int64
    var stdout: String
    var stderr: String
    /// The watchdog had to kill it.
    var killed: Bool

    var description: String {
        "exit \(status) after \(String(format: "%.2f", elapsed)) s, peak \(peakMemory >> 20) MiB\(killed ? ", KILLED by the watchdog" : "")"
            + (stderr.isEmpty ? "" : ": \(stderr.prefix(600))")
    }
}

/// Runs the built `larder` binary as a child process, measuring its time and peak memory, and
/// killing it if it outlives a watchdog. Waiting happens on a thread of its own, never on the
/// cooperative pool, so many can run side by side.
enum LarderProcess {
    static let executable: String = {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("larder").path
    }()

    /// Runs one child, at most ``slots`` at once across the test run: a storm of dozens of
    /// processes on a two-core machine would starve every test that measures time.
    /// - Parameters:
    ///   - launcher: a command that runs `larder` (`setpriv --reuid=nobody …`), if any.
    ///   - environment: variables set (or replaced) for the child on top of this process's.
    static func run(
        _ arguments: [String], launcher: [String] = [], environment extra: [String: String] = [:], watchdog: Duration = .seconds(60)
    ) async throws -> ProcessOutcome {
        await slots.acquire()
        defer { slots.release() }
        let running = try start(arguments, launcher: launcher, environment: extra)
        return await running.wait(watchdog: watchdog)
    }

    static let slots = Slots(4)

    /// A counting semaphore for tasks: waiting suspends, it never blocks a thread.
    final class Slots: Sendable {
        private struct State {
            var free: Int
            var waiting: [CheckedContinuation<Void, Never>] = []
        }
        private let state: Locked<State>

        init(_ count: Int) { state = Locked(State(free: count)) }

        func acquire() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let granted = state.withLock { state -> Bool in
                    if state.free > 0 {
                        state.free -= 1
                        return true
                    }
                    state.waiting.append(continuation)
                    return false
                }
                if granted { continuation.resume() }
            }
        }

        func release() {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if state.waiting.isEmpty {
                    state.free += 1
                    return nil
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
    }

    static func start(_ arguments: [String], launcher: [String] = [], environment extra: [String: String] = [:]) throws -> Running {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("larder-run-\(UUID().uuidString)").path
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        environment.merge(extra) { $1 }
        let spawn = Spawn(
            command: launcher + [executable] + arguments, environment: environment, standardInput: .null,
            standardOutput: .truncating(capture + ".out"), standardError: .truncating(capture + ".err"))
        let pid: pid_t
        do { pid = try spawn.start() } catch { throw IntegrationError(error.description) }
        return Running(pid: pid, capture: capture, started: DispatchTime.now())
    }

    /// A started child.
    final class Running: Sendable {
        let pid: pid_t
        private let capture: String
        private let started: DispatchTime
        /// Set once the child exited (before it is reaped), so the watchdog never signals a
        /// reused pid.
        private let exited = Locked(false)

        fileprivate init(pid: pid_t, capture: String, started: DispatchTime) {
            self.pid = pid
            self.capture = capture
            self.started = started
        }

        /// A running process's resident high-water mark in bytes (`VmHWM`); 0 once it is gone.
        static func highWaterMark(_ pid: pid_t) -> Int64 {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),  // gone: nothing to add
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Int64(line.dropFirst(6).trimmingCharacters(in: .whitespaces).dropLast(3).trimmingCharacters(in: .whitespaces))
            else { return 0 }
            return kilobytes * 1024
        }

        /// Waits for the child to exit, killing it (SIGKILL) if it runs past `watchdog`.
        func wait(watchdog: Duration) async -> ProcessOutcome {
            let killed = Locked(false)
            let limit = watchdog.scaledForTests
            let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
            DispatchQueue.global().asyncAfter(deadline: started + seconds) { [self] in
                exited.withLock { exited in
                    guard !exited else { return }
                    killed.withLock { $0 = true }
                    kill(pid, SIGKILL)
                }
            }
            // The exit time is taken on the waiting thread: a busy cooperative pool may resume
            // this task later, and that delay is not the child's.
            let (status, peak, ended) = await withCheckedContinuation {
                (continuation: CheckedContinuation<(Int32, Int64, DispatchTime), Never>) in
                Thread.detachNewThread { [self] in
                    var peak: Int64 = 0
                    while true {
                        var info = siginfo_t()
                        let waited = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG)
                        if waited == 0 && info._sifields._sigchld.si_pid == pid { break }
                        if waited == -1 && errno != EINTR { break }
                        peak = max(peak, Self.highWaterMark(pid))
                        usleep(2000)
                    }
                    let ended = DispatchTime.now()
                    exited.withLock { $0 = true }
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                    continuation.resume(returning: (status, peak, ended))
                }
            }
            let elapsed = Double(ended.uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
            let stdout = (try? String(contentsOfFile: capture + ".out", encoding: .utf8)) ?? ""  // unreadable output reads as empty
            let stderr = (try? String(contentsOfFile: capture + ".err", encoding: .utf8)) ?? ""
            unlink(capture + ".out")
            unlink(capture + ".err")
            let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return ProcessOutcome(
                status: code, elapsed: elapsed, peakMemory: peak, stdout: stdout, stderr: stderr,
                killed: killed.withLock { $0 })
        }
    }
}
