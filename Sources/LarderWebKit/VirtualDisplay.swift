import CWebKitGTK
import Foundation
import LarderFormat
import LarderHost
import LarderSystem

#if canImport(Glibc)
import Glibc
#endif

/// An Xvfb X server on a free display, for machines without a screen (tests, the CLI, build
/// pipelines).
///
/// The display number is picked at random from 1000 to 29999 and Xvfb confirms it
/// (`-displayfd`), trying another when it is taken, so two processes never share one. Not the
/// first free number from 0, which Xvfb would pick itself: an Xvfb started in another network
/// namespace (`unshare -n`) finds the abstract socket of a low display free there, takes over
/// its socket file in `/tmp/.X11-unix` (shared by every namespace) and removes it when it ends,
/// and the web processes, sandboxed in a network namespace of their own, reach the display
/// only through that file.
///
/// It runs under a small shell watchdog whose standard input is a pipe only this process
/// holds (close-on-exec, so no child inherits it): when this process ends, however it ends,
/// the pipe closes and the watchdog stops Xvfb and waits for it. Stopping it any earlier would
/// take the display away from GTK, which ends the process, so the display lives exactly as
/// long as the process.
public final class VirtualDisplay: Sendable {
    /// The X display name, such as `:99`.
    public let name: String
    /// The watchdog shell's process id.
    public let watchdog: Int32

    private static let current = Locked<VirtualDisplay?>(nil)

    private init(name: String, watchdog: Int32) {
        self.name = name
        self.watchdog = watchdog
    }

    /// Starts Xvfb and points `DISPLAY` at it unless a display is already set (`DISPLAY` or
    /// `WAYLAND_DISPLAY`); later calls return the same display.
    ///
    /// Call it before the first ``WebKitRenderer`` starts: GTK reads `DISPLAY` once.
    /// - Parameters:
    ///   - size: the screen, `WIDTHxHEIGHT`; pages get their own viewport, so this only bounds it.
    ///   - timeout: how long Xvfb may take to accept connections.
    /// - Returns: the display started, or nil when one was already set by someone else.
    /// - Throws: `HostError.Code.renderer` naming `Xvfb` when it is missing, fails or is not
    ///   ready in time.
    public static func startIfNeeded(size: String = "1920x1920", timeout: Duration = .seconds(10)) throws(HostError) -> VirtualDisplay? {
        try current.withLock { (current) throws(HostError) -> VirtualDisplay? in
            if let current { return current }
            let environment = ProcessInfo.processInfo.environment
            if let set = environment["DISPLAY"] ?? environment["WAYLAND_DISPLAY"], !set.isEmpty { return nil }
            let display = try start(size: size, timeout: timeout)
            setenv("DISPLAY", display.name, 1)
            current = display
            return display
        }
    }

    private static func start(size: String, timeout: Duration) throws(HostError) -> VirtualDisplay {
        // Xvfb exits at once when the number is in use: another, a few times.
        for _ in 0..<7 {
            if let display = try start(display: Int.random(in: 1000..<30000), size: size, timeout: timeout) { return display }
        }
        guard let display = try start(display: Int.random(in: 1000..<30000), size: size, timeout: timeout) else {
            throw HostError(.renderer, "Xvfb exited without a display, 8 times (is it installed? apt-get install xvfb)", resource: "Xvfb")
        }
        return display
    }

    /// Xvfb on `display` under its watchdog; nil when it exits without a display (the number is
    /// taken, or Xvfb cannot start).
    private static func start(display: Int, size: String, timeout: Duration) throws(HostError) -> VirtualDisplay? {
        func failure(_ message: String) -> HostError { HostError(.renderer, message, resource: "Xvfb") }
        guard size.utf8.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "x") }) else {
            throw failure("the screen size must be WIDTHxHEIGHT, not '\(size.prefix(40))'")
        }
        // The watchdog's stdin: only we hold the write end (close-on-exec), for the life of the process.
        // g_unix_open_pipe sets close-on-exec atomically (pipe2), so no child spawned meanwhile
        // by another thread inherits an end.
        var lifeline: [Int32] = [0, 0]
        var numbers: [Int32] = [0, 0]
        guard g_unix_open_pipe(&lifeline, FD_CLOEXEC, nil) != 0 else { throw failure("cannot create a pipe: \(String(cString: strerror(errno)))") }
        guard g_unix_open_pipe(&numbers, FD_CLOEXEC, nil) != 0 else {
            close(lifeline[0])
            close(lifeline[1])
            throw failure("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        let script = """
            Xvfb :\(display) -displayfd 3 -screen 0 \(size)x24 -nolisten tcp 3>&1 >/dev/null 2>&1 &
            server=$!
            exec >/dev/null
            read -r _ || true
            kill -TERM "$server" 2>/dev/null
            wait "$server"
            """
        // posix_spawn, not Foundation's Process: the watchdog outlives every call here. Xvfb
        // must see the watchdog's SIGTERM whichever thread starts it.
        let watchdog = Spawn(
            "/bin/sh", arguments: ["-c", script], standardInput: .descriptor(lifeline[0]), standardOutput: .descriptor(numbers[1]),
            standardError: .null, signals: .clean(defaulting: [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD]))
        let pid: pid_t
        do { pid = try watchdog.start() } catch {
            for end in [lifeline[0], lifeline[1], numbers[0], numbers[1]] { close(end) }
            throw failure("cannot start the Xvfb watchdog: \(error.errno)")
        }
        close(lifeline[0])
        close(numbers[1])
        defer { close(numbers[0]) }
        let line = readLine(from: numbers[0], timeout: timeout)
        guard let line, let number = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            close(lifeline[1])  // the watchdog stops Xvfb if it did start
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            guard line == nil else { return nil }
            throw failure("Xvfb did not report a display within \(DurationText.describe(timeout)) (is it installed? apt-get install xvfb)")
        }
        return VirtualDisplay(name: ":\(number)", watchdog: pid)
    }

    /// Reads one line from `fd` within `timeout`; nil on timeout, "" on end of file.
    private static func readLine(from fd: Int32, timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var bytes: [UInt8] = []
        while !bytes.contains(UInt8(ascii: "\n")) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 64)
            let count = read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return String(decoding: bytes, as: UTF8.self) }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
