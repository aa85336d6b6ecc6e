import Foundation
import LarderSystem

/// Peak resident memory (`VmHWM`) of this process and of the processes below it, by name: the
/// web engine's UI process is this one, and WebKitGTK starts a web process per view (under
/// bubblewrap, a level further down) and one network process.
enum ProcessMemory {
    /// One process, its peak and its current resident memory in bytes.
    struct Peak {
        var pid: Int32
        var name: String
        var bytes: Int
        var resident: Int

        init(_ process: RunningProcess) {
            pid = process.pid
            name = process.name
            bytes = process.peakResidentBytes
            resident = process.residentBytes
        }
    }

    /// This process's peak.
    static func own() -> Peak? { peak(getpid()) }

    /// The peaks of the living processes below this one.
    static func descendants() -> [Peak] { ProcessTable.descendants(of: getpid()).map(Peak.init) }

    /// A process's peak (nil once it is gone).
    static func peak(_ pid: Int32) -> Peak? { ProcessTable.process(pid).map(Peak.init) }
}
