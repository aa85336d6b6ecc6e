import Foundation
import LarderSystem

/// Waits for work until a deadline on a ``HostClock``.
enum Deadline {
    /// Runs `operation` in a new task and returns its result, or nil when `deadline` passes
    /// first. The operation is then cancelled but not awaited: a caller is never held past its
    /// deadline by work that ignores cancellation. Cancelling the caller cancels both.
    static func run<T: Sendable>(
        clock: any HostClock, until deadline: Date, _ operation: @escaping @Sendable () async throws(HostError) -> T
    ) async throws(HostError) -> T? {
        let once = Once<Result<T, HostError>?>()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, HostError>?, Never>) in
                once.start(continuation)
                let work = Task {
                    do throws(HostError) { once.resume(.success(try await operation())) } catch { once.resume(.failure(error)) }
                }
                let timer = Task {
                    do { try await clock.sleep(until: deadline) } catch { return }
                    if once.resume(nil) { work.cancel() }
                }
                once.whenResumed { work.cancel(); timer.cancel() }
            }
        } onCancel: {
            once.resume(.failure(HostError(.cancelled, "the work was cancelled")))
        }
        switch outcome {
        case .success(let value)?: return value
        case .failure(let error)?: throw error
        case nil: return nil
        }
    }
}

/// Resumes a continuation exactly once, whichever of several racers comes first.
private final class Once<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, Never>?
        var pending: T?
        var resumed = false
        var cleanup: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    func start(_ continuation: CheckedContinuation<T, Never>) {
        let early: T? = state.withLock { state in
            if state.resumed { return state.pending }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Registers what to do once resumed (runs at once if already resumed).
    func whenResumed(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.resumed { return true }
            state.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    /// Resumes with `value` if nothing did yet; returns whether this call did.
    @discardableResult
    func resume(_ value: T) -> Bool {
        let (won, continuation, cleanup) = state.withLock { state -> (Bool, CheckedContinuation<T, Never>?, (@Sendable () -> Void)?) in
            guard !state.resumed else { return (false, nil, nil) }
            state.resumed = true
            state.pending = value
            defer { state.continuation = nil; state.cleanup = nil }
            return (true, state.continuation, state.cleanup)
        }
        guard won else { return false }
        continuation?.resume(returning: value)
        cleanup?()
        return true
    }
}
