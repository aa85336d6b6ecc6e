import Foundation
import LarderSystem

/// A progress bar on stderr for a person watching a terminal: drawn only when stderr is a
/// terminal (and stdout too, for a bar that asks it) and the command is not `quiet` (`--json`),
/// so nothing reaches a pipe, a file or a program. Given bytes, it shows how many of how many, the rate and the time left.
/// Updates may come from any thread.
final class ProgressBar: Sendable {
    private struct State {
        var lastDrawn: String?
        var lastDrawTime: ContinuousClock.Instant?
        var started: ContinuousClock.Instant?
    }

    private let label: String
    private let enabled: Bool
    private let state = Locked(State())

    /// - Parameter stdoutToo: whether stdout must be a terminal as well (`cache fetch`); `pack`
    ///   and `publish` draw whenever stderr is one.
    init(label: String, quiet: Bool = false, stdoutToo: Bool = true) {
        self.label = label
        enabled = !quiet && (!stdoutToo || isatty(1) == 1) && isatty(2) == 1
    }

    /// Draws a fraction from 0 to 1.
    func update(fraction: Double) {
        let clamped = min(max(fraction, 0), 1)
        draw(Self.line(label: label, fraction: clamped, detail: nil), throttled: false)
    }

    /// Draws `done` of `total` things (objects, files).
    func update(_ done: Int, _ total: Int) {
        guard total > 0 else { return }
        draw(Self.line(label: label, fraction: Double(done) / Double(total), detail: "(\(done)/\(total))"), throttled: false)
    }

    /// Draws `bytes` of `total` bytes received, with the rate since the first update and the
    /// time left at that rate.
    func update(bytes: Int64, of total: Int64) {
        guard enabled, total > 0 else { return }
        let now = ContinuousClock.now
        let started = state.withLock { state in
            if state.started == nil { state.started = now }
            return state.started!
        }
        let elapsed = now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let fraction = min(1, Double(bytes) / Double(total))
        draw(Self.line(label: label, fraction: fraction, detail: Self.transfer(bytes: bytes, of: total, seconds: seconds)), throttled: true)
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled, state.withLock({ $0.lastDrawn != nil }) else { return }
        Console.progress("\r\u{1B}[K")
    }

    /// "fetching [#########---------------------] 30% 1.0 MB of 3.3 MB, 512 kB/s, 5 s left"
    static func line(label: String, fraction: Double, detail: String?) -> String {
        let width = 30
        let filled = Int((Double(width) * fraction).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "\(label) [\(bar)] \(Int((fraction * 100).rounded(.down)))%" + (detail.map { " " + $0 } ?? "")
    }

    /// "1.0 MB of 3.3 MB, 512 kB/s, 5 s left"; no rate in the first half second, when it would
    /// mean little.
    static func transfer(bytes: Int64, of total: Int64, seconds: Double) -> String {
        let amount = "\(humanSize(bytes)) of \(humanSize(total))"
        guard seconds >= 0.5, bytes > 0 else { return amount }
        let rate = Double(bytes) / seconds
        let left = Double(max(0, total - bytes)) / rate
        return amount + ", \(humanSize(Int64(rate)))/s, " + duration(left) + " left"
    }

    /// "5 s", "2 min 5 s", "1 h 3 min".
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }

    /// Draws `line` unless it is the one on screen; a throttled line (one whose rate and time
    /// left change with every chunk) at most every 200 ms unless its percentage changed.
    private func draw(_ line: String, throttled: Bool) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            guard line != state.lastDrawn else { return false }
            if throttled, let last = state.lastDrawTime, now - last < .milliseconds(200),
                Self.percent(of: line) == state.lastDrawn.flatMap(Self.percent(of:))
            {
                return false
            }
            state.lastDrawn = line
            state.lastDrawTime = now
            return true
        }
        // Written over the line drawn last; the end of a longer earlier line is erased after it.
        if due { Console.progress("\r" + line + "\u{1B}[K") }
    }

    private static func percent(of line: String) -> Substring? {
        line.split(separator: "] ", maxSplits: 1).last?.split(separator: "%").first
    }
}
