/// Lets other tasks run until `condition` holds; gives up after `turns` yields (no sleeping:
/// tests on a manual clock only move time when they advance it).
public func eventually(turns: Int = 20_000, _ condition: () async -> Bool) async -> Bool {
    for _ in 0..<turns {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

/// Checks `condition` every 10 ms until it holds; gives up after `limit` (scaled, see
/// ``testTimeScale``). For tests on the system clock whose condition waits on real work (a
/// download, an install) that a number of yields does not bound on a busy machine.
public func eventually(within limit: Duration, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit.scaledForTests
    while clock.now < deadline {
        if try await condition() { return true }
        do { try await Task.sleep(for: .milliseconds(10)) } catch { break }  // cancelled: one last look
    }
    return try await condition()
}
