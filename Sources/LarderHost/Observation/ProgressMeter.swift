import LarderSystem

/// Turns download fractions into the progress a host publishes: mapped onto the share of the
/// whole operation a step covers (one journey of a warm-up), never going back, ending at 1.
/// Reports may come from any thread.
final class ProgressMeter: Sendable {
    private struct State {
        var value = 0.0
        var span = 0.0...1.0
    }

    private let state = Locked(State())
    private let broadcast = Broadcast<Double>()

    /// The last value published.
    var value: Double { state.withLock { $0.value } }

    /// The last value, then every later one, until ``close()``.
    func subscribe() -> AsyncStream<Double> { broadcast.subscribe(current: value) }

    /// Ends every subscriber's stream.
    func close() { broadcast.finish() }

    /// Starts a new operation at 0 (published unless the value already was 0).
    func start() {
        let changed = state.withLock { state -> Bool in
            defer { state = State() }
            return state.value != 0
        }
        if changed { broadcast.yield(0) }
    }

    /// The next reports cover `span` of the operation.
    func step(_ span: ClosedRange<Double>) {
        state.withLock { $0.span = span }
        report(0)
    }

    /// A fraction (0…1) of the current step; published when it moves the total forward.
    func report(_ fraction: Double) {
        let next = state.withLock { state -> Double? in
            let clamped = min(max(fraction, 0), 1)
            let total = state.span.lowerBound + clamped * (state.span.upperBound - state.span.lowerBound)
            guard total > state.value else { return nil }
            state.value = total
            return total
        }
        if let next { broadcast.yield(next) }
    }

    /// The operation is over: publishes 1 unless it already was.
    func finish() {
        let changed = state.withLock { state -> Bool in
            defer { state.value = 1 }
            return state.value < 1
        }
        if changed { broadcast.yield(1) }
    }
}
