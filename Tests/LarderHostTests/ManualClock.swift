import Foundation
import LarderHost
import LarderSystem

/// A clock that moves only when a test advances it; sleepers wake when their deadline passes.
final class ManualClock: HostClock {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let state: Locked<(now: Date, sleepers: [UUID: Sleeper])>

    init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) { state = Locked((now, [:])) }

    var now: Date { state.withLock { $0.now } }

    /// How many tasks are waiting on this clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Date) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Moves time forward and wakes every sleeper whose deadline has passed.
    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            let (seconds, attoseconds) = duration.components
            state.now = state.now.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for key in due.keys { state.sleepers[key] = nil }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}

