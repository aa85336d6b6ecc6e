import Dispatch
import LarderSystem

/// Runs async work from a synchronous command and waits for its result (the work runs on the
/// global executor, never on the blocked thread).
func waitFor<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let result = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await work()
        result.value.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    guard let value = result.value.withLock({ $0 }) else { preconditionFailure("the task signalled without a result") }
    return value
}

/// The result handed from the task to the waiting thread.
private final class ResultBox<T: Sendable>: Sendable {
    let value = Locked<T?>(nil)
}
