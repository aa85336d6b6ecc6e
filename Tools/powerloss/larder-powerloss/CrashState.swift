import Foundation
import LarderToolSupport

/// One crash state: a point of the log and what of the writes since the last flush before it
/// reached the disk.
struct CrashState: Hashable, CustomStringConvertible {
    enum Mode: Hashable {
        /// Every record before the point, as logged.
        case logged
        /// Only what the last flush before the point made durable: everything since is lost.
        case lost
        /// For each 4 KiB sector written since the last flush, one of its versions or none,
        /// drawn with this seed: writes reordered, dropped, torn across sectors.
        case subset(UInt64)
    }

    /// Records before this index may have reached the disk.
    var point: Int
    var mode: Mode

    var description: String {
        switch mode {
        case .logged: "point \(point) logged"
        case .lost: "point \(point) lost"
        case .subset(let seed): "point \(point) subset \(seed)"
        }
    }

    /// `<point> <logged|lost|subset:<seed>>`, as reproductions store it.
    var argument: String {
        switch mode {
        case .logged: "\(point) logged"
        case .lost: "\(point) lost"
        case .subset(let seed): "\(point) subset:\(seed)"
        }
    }

    init(point: Int, mode: Mode) {
        self.point = point
        self.mode = mode
    }

    /// Parses ``argument``'s form.
    init(parsing point: String, _ mode: String) throws {
        guard let point = Int(point), point >= 0 else { throw ToolError("'\(point)' is not a log position") }
        self.point = point
        switch mode {
        case "logged": self.mode = .logged
        case "lost": self.mode = .lost
        default:
            guard mode.hasPrefix("subset:"), let seed = UInt64(mode.dropFirst(7)) else {
                throw ToolError("'\(mode)' is not a mode (logged, lost, subset:<seed>)")
            }
            self.mode = .subset(seed)
        }
    }
}

extension WriteLog {
    /// The last flush before `point` (its index), or nil when none came since base.
    func lastFlush(before point: Int) -> Int? {
        var index = min(point, records.count) - 1
        while index >= 0 {
            if records[index].kind == .flush { return index }
            index -= 1
        }
        return nil
    }

    /// Chooses `count` crash states with `seed`: just before every flush, just after every
    /// mark, and at random positions, each as logged, with the unflushed writes lost, and as
    /// `subsets` random subsets of the unflushed sectors; then a sample of `count` of them
    /// (more random points when there are fewer). Sorted by point.
    func plan(count: Int, subsets: Int, seed: UInt64) -> [CrashState] {
        var random = SeededGenerator(seed: seed)
        let end = self.end
        var points = Set<Int>()
        for (index, record) in records.enumerated() where index <= end {
            if record.kind == .flush { points.insert(index) }
            if record.kind == .mark, index + 1 <= end { points.insert(index + 1) }
        }
        func states(at point: Int) -> [CrashState] {
            var result = [CrashState(point: point, mode: .logged), CrashState(point: point, mode: .lost)]
            let flush = lastFlush(before: point) ?? -1
            let unflushed = records[(flush + 1)..<point].contains { $0.kind == .write || $0.kind == .zero }
            if unflushed { for _ in 0..<subsets { result.append(CrashState(point: point, mode: .subset(random.next()))) } }
            return result
        }
        var candidates = Set<CrashState>()
        for point in points.sorted() { candidates.formUnion(states(at: point)) }
        var chosen = Array(candidates).sorted { ($0.point, $0.description) < ($1.point, $1.description) }
        chosen.shuffle(using: &random)
        chosen = Array(chosen.prefix(count))
        var attempts = 0
        while chosen.count < count, end > 1, attempts < count * 10 {
            attempts += 1
            let point = 1 + Int(random.next() % UInt64(end))
            let state = CrashState(point: point, mode: .subset(random.next()))
            if !candidates.contains(state) {
                candidates.insert(state)
                chosen.append(state)
            }
        }
        return chosen.sorted { ($0.point, $0.description) < ($1.point, $1.description) }
    }
}
