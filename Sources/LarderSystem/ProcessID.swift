#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process and others, by id, and what tells two processes that had the same id apart.
///
/// A process id alone does not name a process for long: once it ends, the kernel gives its id
/// to a later one (Linux counts up to `pid_max`, 4,194,304 on 64-bit systems, and starts again),
/// and after a reboot ids start again from 1. So a record that must end with its process (a
/// cache lease) keeps the id and the process's *start mark* beside it.
public enum ProcessID {
    /// This process's id (`getpid(2)`).
    public static var current: Int32 { getpid() }

    /// This process's start mark (``startMark(of:)``), read once.
    public static let currentStart: String = startMark(of: getpid()) ?? ""

    /// Whether a process with this id exists (`kill(2)` with signal 0; `EPERM` means it
    /// exists but belongs to another user). An ended process not yet reaped (a zombie) counts.
    public static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// Whether the process that had id `pid` and start mark `start` when it was recorded is
    /// still running: not when no process has the id, when its process ended (a zombie too),
    /// or when a later process took the id. With an unknown mark (`""`: recorded where marks
    /// cannot be read) only the id is checked, as ``isAlive(_:)`` does.
    public static func isAlive(_ pid: Int32, start: String) -> Bool {
        guard !start.isEmpty else { return isAlive(pid) }
        guard let now = startMark(of: pid) else { return false }
        return now.isEmpty || now == start
    }

    /// When process `pid` started, as text that differs between any two processes that had the
    /// same id: on Linux, the boot's id (`/proc/sys/kernel/random/boot_id`) and the start time
    /// in clock ticks since boot (`/proc/<pid>/stat`, field 22). `""` when it cannot be told
    /// (other platforms; a `/proc` that hides other users' processes), nil when no process
    /// runs under that id (a zombie, ended but not reaped, does not run).
    public static func startMark(of pid: Int32) -> String? {
        #if os(Linux)
        guard pid > 0, let stat = readSmallFile("/proc/\(pid)/stat") else { return isAlive(pid) ? "" : nil }
        // "pid (comm) state ppid …": comm may hold spaces and parentheses, so fields are
        // counted from the last ')'.
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return "" }
        let fields = stat[stat.index(after: close)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19, let state = fields[0].first else { return "" }
        if state == UInt8(ascii: "Z") || state == UInt8(ascii: "X") || state == UInt8(ascii: "x") { return nil }
        return bootID + ":" + String(decoding: fields[19], as: UTF8.self)
        #else
        return isAlive(pid) ? "" : nil
        #endif
    }

    #if os(Linux)
    /// This boot's id, read once ("" when unreadable).
    private static let bootID: String = {
        guard let bytes = readSmallFile("/proc/sys/kernel/random/boot_id") else { return "" }
        return String(decoding: bytes.filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }()

    /// The first 4 KiB of a file (`/proc` files are read in one `read(2)`), nil when it cannot
    /// be opened or read.
    private static func readSmallFile(_ path: String) -> [UInt8]? {
        guard let file = try? FileDescriptor(opening: path, .readOnly) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count: Int
        do { count = try bytes.withUnsafeMutableBytes { (buffer) throws(Errno) in try file.read(into: buffer) } } catch { return nil }
        return Array(bytes[..<count])
    }
    #endif
}
