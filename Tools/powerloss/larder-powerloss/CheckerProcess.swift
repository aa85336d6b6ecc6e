import Foundation

/// The long-lived checker (`larder-powerloss check-server`), a child process handed one mounted
/// state after another over a pipe: `check <root> <point>` in, `ok` or `bad <problems>` out.
/// A separate process, so that Larder crashing on a state is a verdict, not the explorer's end.
final class CheckerProcess {
    private let command: [String]
    private var child: ChildProcess?
    /// How long one check may take before it counts as a hang.
    let timeout: Double
    /// What the checker was doing when the last check hung (``HangReport``); nil after a
    /// check that did not hang.
    private(set) var lastHangReport: String?

    /// - Parameter command: the checker's command line; by default this executable's
    ///   `check-server` with `arguments`.
    init(arguments: [String], timeout: Double, command: [String]? = nil) {
        self.command = command ?? [CommandLine.arguments[0], "check-server"] + arguments
        self.timeout = timeout
    }

    deinit { stop() }

    /// Checks the cache under `root` as of the crash point.
    /// - Returns: the problems found; a crash or hang of the checker is one.
    func check(root: String, point: Int) throws -> [String] {
        let child = try child ?? ChildProcess(command, mergeErrors: false)
        self.child = child
        lastHangReport = nil
        let sent = child.send("check \(root) \(point)")
        guard sent, let line = child.readLine(until: Date().addingTimeInterval(timeout)) else {
            let exited = child.wait(until: Date().addingTimeInterval(sent ? 1 : 5))
            if exited == nil { lastHangReport = HangReport.capture(pid: child.pid) }
            let status = exited.map { "died (status \($0))" } ?? "hung for \(Int(timeout)) s"
            self.child = nil
            if !child.kill() { reportUnkillable(child) }
            return ["the checker \(status) on this state"]
        }
        if line == "ok" { return [] }
        guard line.hasPrefix("bad "), line.utf8.count < ChildProcess.lineLimit else {
            // Out of step with it: the next state gets a new checker.
            stop()
            return ["the checker answered '\(line.prefix(200))'"]
        }
        return [String(line.dropFirst(4))]
    }

    /// Ends the checker: closes its input (it finishes at end of input), waits 2 s, then kills it.
    func stop() {
        guard let child else { return }
        self.child = nil
        child.closeInput()
        if child.wait(until: Date().addingTimeInterval(2)) == nil && !child.kill() { reportUnkillable(child) }
    }

    private func reportUnkillable(_ child: ChildProcess) {
        FileHandle.standardError.write(Data("powerloss: the checker (pid \(child.pid)) outlived SIGKILL by 10 s; going on without it\n".utf8))
    }
}
