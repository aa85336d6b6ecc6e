import Foundation

/// Peak resident memory (`VmHWM`) of this process and of its children, by name: the web
/// engine's UI process is this one, and WebKitGTK starts a web process per view and one
/// network process.
enum ProcessMemory {
    /// One process and its peak resident memory in bytes.
    struct Peak {
        var pid: Int32
        var name: String
        var bytes: Int
    }

    /// This process's peak.
    static func own() -> Peak? { peak(getpid()) }

    /// The peaks of this process's living children.
    static func children() -> [Peak] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }  // no /proc: nothing to report
        let me = getpid()
        return entries.compactMap { Int32($0) }.filter { parent(of: $0) == me }.compactMap(peak)
    }

    private static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),  // the process may be gone
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// A process's peak (nil once it is gone).
    static func peak(_ pid: Int32) -> Peak? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }  // the process may be gone
        var name = ""
        var kilobytes = 0
        for line in status.split(separator: "\n") {
            if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
            if line.hasPrefix("VmHWM:") { kilobytes = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? 0 }
        }
        return Peak(pid: pid, name: name, bytes: kilobytes * 1024)
    }
}
