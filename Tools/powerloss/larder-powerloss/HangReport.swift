import Foundation

/// What a hung checker was doing, taken before it is killed: each thread's state and where it
/// waits in the kernel (`/proc/<pid>/task/*`), then every thread's stack from `gdb` when the
/// machine has it (bounded: a debugger that hangs too is killed). So a hang seen once in a long
/// run says whether Larder waited on itself (a lock, a task) or on the file system.
enum HangReport {
    /// The report for process `pid`, as lines of text.
    static func capture(pid: pid_t, gdbTimeout: Double = 30) -> String {
        var lines = ["threads of pid \(pid) (state, kernel wait channel, name):"]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks.sorted(by: { (Int($0) ?? 0) < (Int($1) ?? 0) }) {
            let folder = "/proc/\(pid)/task/\(task)"
            let name = read(folder + "/comm")
            let state = read(folder + "/stat").split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
            lines.append("  \(task) \(state) \(read(folder + "/wchan")) \(name)")
            let kernelStack = read(folder + "/stack")
            if state == "D", !kernelStack.isEmpty { lines.append(contentsOf: kernelStack.split(separator: "\n").map { "      \($0)" }) }
        }
        lines.append(stacks(pid: pid, timeout: gdbTimeout))
        return lines.joined(separator: "\n")
    }

    /// Every thread's stack, from `gdb -batch` attached to `pid`.
    private static func stacks(pid: pid_t, timeout: Double) -> String {
        guard let gdb = ["/usr/bin/gdb", "/opt/swift/usr/bin/gdb"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
            return "(no gdb on this machine: no user-space stacks)"
        }
        do {
            let child = try ChildProcess(
                [gdb, "-nx", "-batch", "-p", String(pid), "-ex", "thread apply all bt 40"], mergeErrors: true)
            child.closeInput()
            guard let output = child.readToEnd(until: Date().addingTimeInterval(timeout)) else {
                child.kill()
                return "(gdb did not finish in \(Int(timeout)) s)"
            }
            child.wait(until: Date().addingTimeInterval(5))
            let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
            let stacks = lines.filter { $0.hasPrefix("#") || $0.hasPrefix("Thread ") }
            // A machine that forbids ptrace (a container without the capability): say so.
            guard !stacks.isEmpty else { return "(gdb could not read the stacks: \(lines.last ?? "no output"))" }
            return stacks.joined(separator: "\n")
        } catch {
            return "(cannot start gdb: \(error))"
        }
    }

    private static func read(_ path: String) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "" }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
