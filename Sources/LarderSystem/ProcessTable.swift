#if os(Linux)
import Foundation
import Glibc

/// One running process as `/proc` shows it.
public struct RunningProcess: Sendable, Equatable {
    public var pid: pid_t
    public var parent: pid_t
    /// The command name (`/proc/<pid>/comm`: at most 15 bytes, `WebKitWebProces`).
    public var name: String
    /// When it started, in clock ticks since boot: with the pid, it names this process and not
    /// a later one that reuses the pid.
    public var startTime: UInt64
    /// Resident memory now (`VmRSS`) and at its peak (`VmHWM`), in bytes.
    public var residentBytes: Int
    public var peakResidentBytes: Int
}

/// The processes of this machine, read from `/proc` (Linux): to find the ones a process
/// started (a web engine's web processes under their sandbox) and their memory.
public enum ProcessTable {
    /// The process `pid`, nil once it is gone (or a zombie).
    public static func process(_ pid: pid_t) -> RunningProcess? {
        // Each read may fail because the process ended meanwhile: that is the answer nil.
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is the state (field 3 of stat), fields[1] the parent, fields[19] the start time.
        guard fields.count > 19, fields[0] != "Z", let parent = pid_t(fields[1]), let start = UInt64(fields[19]) else { return nil }
        var resident = 0
        var peak = 0
        if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                if line.hasPrefix("VmRSS:") { resident = kilobytes(line.dropFirst(6)) * 1024 }
                if line.hasPrefix("VmHWM:") { peak = kilobytes(line.dropFirst(6)) * 1024 }
            }
        }
        return RunningProcess(
            pid: pid, parent: parent, name: String(stat[stat.index(after: open)..<close]), startTime: start, residentBytes: resident,
            peakResidentBytes: peak)
    }

    /// Every living process whose chain of parents reaches `ancestor`, in no particular order.
    public static func descendants(of ancestor: pid_t) -> [RunningProcess] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) }.compactMap(process) ?? []
        var children: [pid_t: [RunningProcess]] = [:]
        for process in all { children[process.parent, default: []].append(process) }
        var found: [RunningProcess] = []
        var next = [ancestor]
        while let pid = next.popLast() {
            for child in children[pid] ?? [] where child.pid != ancestor {
                found.append(child)
                next.append(child.pid)
            }
        }
        return found
    }

    /// Whether `process` still runs: the same pid, started at the same time, not a zombie.
    public static func isRunning(_ process: RunningProcess) -> Bool {
        self.process(process.pid)?.startTime == process.startTime
    }

    private static func kilobytes(_ text: Substring) -> Int {
        Int(text.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? 0
    }
}
#endif
