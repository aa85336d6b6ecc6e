import LarderSystem

/// What `work` returns, or nil when it is still running `limit` after it started: a watchdog
/// for async calls that could hang. A hung call cannot be stopped; it is left behind and the
/// test fails instead of waiting for it.
///
/// The limit is measured by a timer task, which a busy test process may wake late (every task
/// shares a few threads, and synchronous tests that wait for child processes hold them). A late
/// wake says nothing about `work`, which may have finished and not yet been resumed: the
/// watchdog then gives it two more seconds, and only a wake on time (within half a second of its
/// mark) with `work` unfinished counts as a hang. The limit is scaled by ``testTimeScale``.
public func value<T: Sendable>(within limit: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
    let settled = Locked<CheckedContinuation<T?, Never>?>(nil)
    let resume: @Sendable (T?) -> Void = { value in settled.withLock { $0.take() }?.resume(returning: value) }
    return await withCheckedContinuation { continuation in
        settled.withLock { $0 = continuation }
        Task { resume(await work()) }
        Task {
            var mark = ContinuousClock.now + limit.scaledForTests
            while true {
                do { try await Task.sleep(until: mark) } catch { return }
                if ContinuousClock.now < mark + .milliseconds(500) { break }  // on time: a real hang
                mark = .now + .seconds(2)
            }
            resume(nil)
        }
    }
}

/// Whether `work` finished within `limit` (see ``value(within:_:)``).
public func finishes(within limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
    await value(within: limit) { await work(); return true } ?? false
}
