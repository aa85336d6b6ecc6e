import LarderSystem

/// A value that changes now and then, and who listens to it: each subscriber gets the latest
/// value once known, then every value published after it, in order (``Broadcast`` underneath).
///
/// Values are handed over holding only a lock of its own, never the one a stream's cancellation
/// handler takes: a stream resumes its waiting task under that task's lock, and cancelling a
/// task runs its stream's handler under the same task lock, so handing a value over while
/// holding the subscribers' lock deadlocks with a consumer's cancellation. (The power-loss
/// checker found it: GIO's thread published while a host was disposed, and both threads waited
/// on each other for good.)
final class LatestValue<Value: Sendable & Equatable>: Sendable {
    private let broadcast: Broadcast<Value>
    /// The latest value, nil before the first; held while one is handed over, so subscribers
    /// get values in the order they were published.
    private let latest = Locked<Value?>(nil)

    /// - Parameter bufferingNewest: how many values a subscriber that does not keep up keeps
    ///   (the newest).
    init(bufferingNewest: Int) {
        broadcast = Broadcast(bufferingPolicy: .bufferingNewest(bufferingNewest))
    }

    /// The latest value; nil before the first.
    var current: Value? { latest.withLock { $0 } }

    /// The latest value once known, then every later one.
    func subscribe() -> AsyncStream<Value> {
        latest.withLock { latest in
            if let latest { return broadcast.subscribe(current: latest) }
            return broadcast.subscribe()
        }
    }

    /// Makes `value` the latest and hands it to every subscriber.
    /// - Parameter onlyChanges: when true, a value equal to the latest is not handed over.
    func publish(_ value: Value, onlyChanges: Bool = false) {
        latest.withLock { latest in
            guard !onlyChanges || latest != value else { return }
            latest = value
            broadcast.yield(value)
        }
    }
}
