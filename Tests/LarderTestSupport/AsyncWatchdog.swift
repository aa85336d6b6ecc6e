import LarderSystem

/// What `work` returns, or nil when it is still running once `limit` has passed: a watchdog for
/// async calls that could hang. A hung call cannot be stopped; it is left behind and the test
/// fails instead of waiting for it.
///
/// Every task shares a few threads, and synchronous tests that wait for child processes or pack
/// large folders hold them: `work` then makes no progress for reasons of its own, and neither
/// does the watchdog. So the limit counts only the time the threads were serving: the watchdog
/// wakes every 100 ms and counts a step only when it woke within 50 ms of its mark. (A single
/// timer that woke on time once at the limit still failed a call that had been starved for most
/// of it: a run of the test command gave `present()` 10 s while synchronous tests held both
/// threads; in another, this watchdog's 1 s limit took 47.7 s.) It ends at its first wake past
/// five times the limit on the wall clock, however few steps it counted. The limit is scaled
/// by ``testTimeScale``.
public func value<T: Sendable>(within limit: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
    let settled = Locked<CheckedContinuation<T?, Never>?>(nil)
    let resume: @Sendable (T?) -> Void = { value in settled.withLock { $0.take() }?.resume(returning: value) }
    return await withCheckedContinuation { continuation in
        settled.withLock { $0 = continuation }
        Task { resume(await work()) }
        Task {
            let clock = ContinuousClock()
            let scaled = limit.scaledForTests
            let end = clock.now + scaled * 5
            let step = Duration.milliseconds(100)
            var served = Duration.zero
            while served < scaled, clock.now < end {
                let mark = clock.now + step
                do { try await Task.sleep(until: mark) } catch { return }
                if clock.now < mark + .milliseconds(50) { served += step }
            }
            resume(nil)
        }
    }
}

/// Whether `work` finished within `limit` (see ``value(within:_:)``).
public func finishes(within limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
    await value(within: limit) { await work(); return true } ?? false
}
