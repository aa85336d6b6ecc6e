import Foundation

/// The long-lived checker (`larder-powerloss check-server`), a child process handed one mounted
/// state after another over a pipe: `check <root> <point>` in, `ok` or `bad <problems>` out.
/// A separate process, so that Larder crashing on a state is a verdict, not the explorer's end.
final class CheckerProcess {
    private let arguments: [String]
    private var process: Process?
    private var input: FileHandle?
    private var output: Int32 = -1
    /// Held so their descriptors stay open while the child runs.
    private var pipes: (Pipe, Pipe)?
    private var buffered: [UInt8] = []
    /// How long one check may take before it counts as a hang.
    let timeout: Double

    init(arguments: [String], timeout: Double) {
        self.arguments = arguments
        self.timeout = timeout
    }

    deinit { stop() }

    /// Checks the cache under `root` as of the crash point.
    /// - Returns: the problems found; a crash or hang of the checker is one.
    func check(root: String, point: Int) throws -> [String] {
        if process == nil { try start() }
        input!.write(Data("check \(root) \(point)\n".utf8))
        guard let line = readLine() else {
            let status = process.map { $0.isRunning ? "hung for \(Int(timeout)) s" : "died (status \($0.terminationStatus))" } ?? "died"
            stop()
            return ["the checker \(status) on this state"]
        }
        if line == "ok" { return [] }
        return [String(line.dropFirst(4))]
    }

    private func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["check-server"] + arguments
        let toChild = Pipe()
        let fromChild = Pipe()
        process.standardInput = toChild
        process.standardOutput = fromChild
        try process.run()
        self.process = process
        input = toChild.fileHandleForWriting
        output = fromChild.fileHandleForReading.fileDescriptor
        pipes = (toChild, fromChild)
        buffered = []
    }

    func stop() {
        if let process, process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        process = nil
        input = nil
        pipes = nil
        output = -1
    }

    /// One line from the child, waiting at most ``timeout``; nil on end of file or timeout.
    private func readLine() -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 1) * 1000))
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return nil }
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(output, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffered += chunk[..<count]
        }
    }
}
