import Foundation
import LarderSystem

/// Hands each value to every subscriber's `AsyncStream`, until finished. A stream stops being
/// fed when its consumer goes away.
final class Broadcast<Value: Sendable>: Sendable {
    private let state = Locked<(subscribers: [UUID: AsyncStream<Value>.Continuation], finished: Bool)>(([:], false))
    private let bufferingPolicy: AsyncStream<Value>.Continuation.BufferingPolicy

    /// - Parameter bufferingPolicy: what each subscriber's stream keeps while its consumer
    ///   does not keep up.
    init(bufferingPolicy: AsyncStream<Value>.Continuation.BufferingPolicy = .unbounded) {
        self.bufferingPolicy = bufferingPolicy
    }

    /// A stream that starts with `current`, then gets every later value; already finished when
    /// the broadcast is.
    func subscribe(current: Value) -> AsyncStream<Value> { subscribe(startingWith: [current]) }

    /// A stream of every later value (none of the past); already finished when the broadcast is.
    func subscribe() -> AsyncStream<Value> { subscribe(startingWith: []) }

    private func subscribe(startingWith first: [Value]) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: bufferingPolicy)
        for value in first { continuation.yield(value) }
        let id = UUID()
        let added = state.withLock { state in
            if !state.finished { state.subscribers[id] = continuation }
            return !state.finished
        }
        guard added else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    func yield(_ value: Value) {
        for subscriber in state.withLock({ Array($0.subscribers.values) }) { subscriber.yield(value) }
    }

    /// Ends every stream, and those subscribed later.
    func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
